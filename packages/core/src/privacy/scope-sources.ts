import type { Source } from "../store/records.js";

/**
 * Who a search or a context is for. `main`: the user's own session, everything. `group`: a shared
 * conversation — personal files (any `MEMORY.md`, the layout's long-term file, the profile),
 * files with `sensitive: true` front matter, private spans and session transcripts are left out.
 */
export type MemoryScope = "main" | "group";

/**
 * Suffix of a chunk's source when the chunk is for the main scope only: it holds private text, or
 * comes from a personal or sensitive file. Its results show the plain source (`memory`).
 */
export const MAIN_ONLY_SUFFIX = "#private";
/**
 * Suffix of a chunk's source when the chunk is for the group scope only: the public view of a
 * chunk holding private text, each private span replaced by `[private]`.
 */
export const GROUP_ONLY_SUFFIX = "#redacted";

/** The sources core's indexer writes without a scope suffix. */
const INDEXED_SOURCES: readonly Source[] = ["memory", "sessions"];

/** The source stored for a chunk of `source` that only the main scope may see. */
export function mainOnlySource(source: Source): Source {
  return `${source}${MAIN_ONLY_SUFFIX}`;
}

/** The source stored for a chunk of `source` that only the group scope may see. */
export function groupOnlySource(source: Source): Source {
  return `${source}${GROUP_ONLY_SUFFIX}`;
}

/** The source a result shows for a stored chunk source (the scope suffix dropped). */
export function publicSource(stored: Source): Source {
  const hash = stored.lastIndexOf("#");
  if (hash < 0) return stored;
  const suffix = stored.slice(hash);
  return suffix === MAIN_ONLY_SUFFIX || suffix === GROUP_ONLY_SUFFIX
    ? stored.slice(0, hash)
    : stored;
}

/**
 * The stored sources a search in `scope` reads, for the sources asked for (default: all core
 * indexes). The store filters by them, so a chunk the scope may not see is never a candidate:
 * it takes no place in a candidate pool, no rank, no share of a fused score.
 *
 * - `main`: each source with its main-only chunks; never the group-only (redacted) copies.
 * - `group`: only `memory`, with its group-only copies; never transcripts or main-only chunks.
 */
export function scopeSources(
  scope: MemoryScope,
  requested: readonly Source[] | undefined,
): Source[] {
  const asked = (requested ?? INDEXED_SOURCES).map(publicSource);
  if (scope === "group") {
    return asked.includes("memory") ? ["memory", groupOnlySource("memory")] : [];
  }
  return [...new Set(asked.flatMap((s) => [s, mainOnlySource(s)]))];
}
