import type { SearchFilter } from "./records.js";

/** The chunk fields a {@link SearchFilter} looks at. */
export interface Filterable {
  path: string;
  tier: string;
  source: string;
}

/** True when a chunk passes the filter. */
export type ChunkPredicate = (chunk: Filterable) => boolean;

/** True when a chunk with this tier and source passes the filter's `tiers` and `sources`. */
export type LabelPredicate = (tier: string, source: string) => boolean;

/**
 * The `tiers` and `sources` of `filter` as a predicate, or undefined when they restrict nothing
 * (`pathPrefix` is not looked at). An empty list matches nothing.
 */
export function compileLabelFilter(filter: SearchFilter | undefined): LabelPredicate | undefined {
  const tiers = filter?.tiers ? new Set<string>(filter.tiers) : undefined;
  const sources = filter?.sources ? new Set<string>(filter.sources) : undefined;
  if (!tiers && !sources) return undefined;
  return (tier, source) => (!tiers || tiers.has(tier)) && (!sources || sources.has(source));
}

/** True when `filter` keeps no chunk at all: an empty `tiers` or `sources` list. */
export function matchesNothing(filter: SearchFilter | undefined): boolean {
  return filter?.tiers?.length === 0 || filter?.sources?.length === 0;
}

/**
 * `filter` as a predicate on chunks, for drivers that filter in memory; undefined when it
 * restricts nothing. An empty `tiers` or `sources` list matches nothing; `pathPrefix` is a
 * literal, case-sensitive string prefix (no wildcards).
 */
export function compileFilter(filter: SearchFilter | undefined): ChunkPredicate | undefined {
  const labels = compileLabelFilter(filter);
  const prefix = filter?.pathPrefix ? filter.pathPrefix : undefined;
  if (!labels && prefix === undefined) return undefined;
  return (chunk) =>
    (!labels || labels(chunk.tier, chunk.source)) &&
    (prefix === undefined || chunk.path.startsWith(prefix));
}
