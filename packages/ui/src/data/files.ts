import type { Memory, MemoryScope, Tier } from "@engram/core";
import { createTierResolver, readMemoryFile } from "@engram/core/internal";
import { UiRefusal } from "../errors.js";
import { hiddenInGroup, publicView } from "../scope.js";

/** A memory file as the page shows it in one scope. */
export interface FileView {
  /** Index path, as search results name it. */
  path: string;
  /** The text the scope may see (private spans redacted outside the main scope). */
  text: string;
  totalLines: number;
  tier: Tier;
}

/**
 * Read a memory file for the page through core's `memory_get` sandbox (`readMemoryFile`: `..`
 * and symlink escapes, non-Markdown files, `.engram/` and dot-folders are refused before a byte is
 * read), then apply the scope: outside the main scope a personal or sensitive file is refused and
 * private spans are redacted.
 *
 * It reads the file directly rather than through `Memory.get`, which counts the read as a recall
 * for promotion candidates: a person browsing is not the agent remembering.
 */
export async function readFileView(
  memory: Memory,
  requested: string,
  scope: MemoryScope,
): Promise<FileView> {
  const slice = await readMemoryFile(memory.workspace, requested, {
    extraPaths: memory.config.extraPaths,
    maxBytes: memory.config.sync.maxFileBytes,
  });
  const tier = tierOf(memory, slice.path);
  if (scope === "main")
    return { path: slice.path, text: slice.text, totalLines: slice.totalLines, tier };
  const hidden = hiddenInGroup(slice.path, slice.text, memory.layout.personalFiles);
  if (hidden) {
    throw new UiRefusal(
      403,
      "MAIN_SCOPE_ONLY",
      `${slice.path} is ${hidden === "personal" ? "personal memory" : "marked sensitive"}: shown in the main scope only`,
      "choose the main scope (the scope switch in the header) to see it",
    );
  }
  return { path: slice.path, text: publicView(slice.text), totalLines: slice.totalLines, tier };
}

const resolvers = new WeakMap<Memory, (path: string) => Tier>();

/** The tier of an index path under the memory's layout and tier map. */
export function tierOf(memory: Memory, path: string): Tier {
  let resolve = resolvers.get(memory);
  if (!resolve) {
    resolve = createTierResolver(memory.layout.tiers, memory.config.defaultTier);
    resolvers.set(memory, resolve);
  }
  return resolve(path);
}
