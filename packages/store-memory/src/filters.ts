import type { SearchFilter } from "@engram/core";

/** The chunk fields a {@link SearchFilter} looks at. */
export interface Filterable {
  path: string;
  tier: string;
  source: string;
}

/** True when a chunk passes the filter. */
export type ChunkPredicate = (chunk: Filterable) => boolean;

/**
 * `filter` as a predicate, or undefined when it restricts nothing. An empty `tiers` or `sources`
 * list matches nothing; `pathPrefix` is a literal, case-sensitive string prefix (no wildcards).
 */
export function compileFilter(filter: SearchFilter | undefined): ChunkPredicate | undefined {
  if (!filter) return undefined;
  const tiers = filter.tiers ? new Set<string>(filter.tiers) : undefined;
  const sources = filter.sources ? new Set<string>(filter.sources) : undefined;
  const prefix = filter.pathPrefix ? filter.pathPrefix : undefined;
  if (!tiers && !sources && prefix === undefined) return undefined;
  return (chunk) =>
    (tiers === undefined || tiers.has(chunk.tier)) &&
    (sources === undefined || sources.has(chunk.source)) &&
    (prefix === undefined || chunk.path.startsWith(prefix));
}
