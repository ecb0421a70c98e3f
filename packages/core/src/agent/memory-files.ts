import { EngramError } from "../errors.js";
import type { Memory } from "../memory.js";
import type { MemoryScope } from "../search/group-scope.js";
import type { Tier } from "../tier.js";
import { isPersonalPath, isSensitiveFile, stripPrivate } from "../workspace/privacy.js";
import { readMemoryFile } from "../workspace/read.js";
import { scanWorkspace } from "../workspace/scan.js";
import { createTierResolver } from "../workspace/tiers.js";

/** What {@link listMemoryFiles} and {@link readMemoryFileText} need of a {@link Memory}. */
export type MemoryFilesHost = Pick<Memory, "workspace" | "config" | "layout" | "get">;

/** One memory file, as a client may list it (e.g. an MCP resource). */
export interface MemoryFileEntry {
  /** Index key: workspace-relative POSIX path (absolute for an extra path outside it). */
  path: string;
  tier: Tier;
  /** Size in bytes. */
  bytes: number;
  /** Last modification, ISO 8601. */
  modified: string;
}

/** Options of {@link listMemoryFiles} and {@link readMemoryFileText}. */
export interface MemoryFilesOptions {
  /**
   * `main` (default): every file, as it is. `group`: the personal files (`MEMORY.md`, the profile),
   * files marked `sensitive: true` and files that cannot be read are left out, and private blocks
   * are cut from the text — the rules of `search({ scope: "group" })`.
   */
  scope?: MemoryScope;
}

/**
 * The workspace's memory files (`MEMORY.md`, `memory/**\/*.md`, the extra paths), sorted by path,
 * each with its tier, size and modification time — what an MCP client lists as resources. Read
 * from the files, not the index, so a file not yet indexed is listed too.
 */
export async function listMemoryFiles(
  memory: MemoryFilesHost,
  options: MemoryFilesOptions = {},
): Promise<MemoryFileEntry[]> {
  const scope = options.scope ?? "main";
  const tierOf = createTierResolver(memory.layout.tiers, memory.config.defaultTier);
  const { files } = await scanWorkspace({
    workspace: memory.workspace,
    extraPaths: memory.config.extraPaths,
  });
  const entries: MemoryFileEntry[] = [];
  for (const file of files) {
    if (scope === "group" && (await withheldFromGroup(memory, file.path))) continue;
    entries.push({
      path: file.path,
      tier: tierOf(file.path),
      bytes: file.size,
      modified: new Date(file.mtimeMs).toISOString(),
    });
  }
  return entries;
}

/**
 * The whole text of a memory file as `scope` may see it, read through `Memory.get` (the same
 * sandbox as `memory_get`: workspace-relative Markdown memory files and the extra paths only).
 *
 * @throws EngramError `PATH_NOT_ALLOWED` in the group scope for a personal or sensitive file; any
 * error of `Memory.get` (`FILE_NOT_FOUND`, `PATH_OUTSIDE_WORKSPACE`, …).
 */
export async function readMemoryFileText(
  memory: MemoryFilesHost,
  path: string,
  options: MemoryFilesOptions = {},
): Promise<{ path: string; text: string }> {
  const slice = await memory.get(path);
  if ((options.scope ?? "main") === "main") return { path: slice.path, text: slice.text };
  if (isPersonalPath(slice.path, memory.layout.personalFiles) || isSensitiveFile(slice.text)) {
    throw new EngramError("PATH_NOT_ALLOWED", `${slice.path} is private to the main scope`, {
      hint: "personal files and files marked sensitive: true are only shown to the user's own session",
    });
  }
  return { path: slice.path, text: stripPrivate(slice.text) };
}

/** True when the group scope may not see the file at all (personal, sensitive or unreadable). */
async function withheldFromGroup(memory: MemoryFilesHost, path: string): Promise<boolean> {
  if (isPersonalPath(path, memory.layout.personalFiles)) return true;
  try {
    // Read directly, not through `Memory.get`: a listing is not a recall.
    const { text } = await readMemoryFile(memory.workspace, path, {
      extraPaths: memory.config.extraPaths,
      maxBytes: memory.config.sync.maxFileBytes,
    });
    return isSensitiveFile(text);
  } catch {
    return true; // failing closed
  }
}
