import type { SearchFilter, Source } from "@engram/core/driver";
import type { Schemas } from "@qdrant/js-client-rest";
import { prefixKey } from "./path-prefix.js";
import { CHUNK_FIELDS, RECORD_FIELDS, type RecordKind } from "./schema.js";

/** A Qdrant filter (the JSON body's `filter`). */
export type Filter = Schemas["Filter"];
/** One condition of a {@link Filter}. */
export type Condition = Schemas["Condition"];

/** A search filter in Qdrant terms: no restriction, "matches nothing", or a filter. */
export type FilterPlan = { kind: "all" } | { kind: "none" } | { kind: "filter"; filter: Filter };

/**
 * The chunks a {@link SearchFilter} keeps, as a Qdrant filter over the payload-indexed fields:
 * `tier` and `source` match any listed value, and a path prefix matches one key of the chunk's
 * `path_prefixes` (see `path-prefix.ts`). An empty tier or source list matches nothing; absent
 * fields and an empty prefix do not restrict. The prefix is literal and case-sensitive.
 */
export function searchFilter(filter: SearchFilter | undefined): FilterPlan {
  if (filter?.tiers?.length === 0 || filter?.sources?.length === 0) return { kind: "none" };
  const must: Condition[] = [];
  if (filter?.tiers) must.push(matchAny(CHUNK_FIELDS.tier, filter.tiers));
  if (filter?.sources) must.push(matchAny(CHUNK_FIELDS.source, filter.sources));
  if (filter?.pathPrefix) {
    must.push({ key: CHUNK_FIELDS.pathPrefixes, match: { value: prefixKey(filter.pathPrefix) } });
  }
  return must.length === 0 ? { kind: "all" } : { kind: "filter", filter: { must } };
}

/** Chunks of any of `paths` (a non-empty list). */
export function chunksOfPaths(paths: readonly string[]): Filter {
  return { must: [matchAny(CHUNK_FIELDS.path, paths)] };
}

/**
 * Chunks of any of `paths` except the points `keep`: what is left of those files' previous
 * versions once their new chunks are written.
 */
export function staleChunks(paths: readonly string[], keep: readonly string[]): Filter {
  const filter: Filter = { must: [matchAny(CHUNK_FIELDS.path, paths)] };
  if (keep.length) filter.must_not = [{ has_id: [...keep] }];
  return filter;
}

/** Records of one kind (file, meta or cache), optionally of one source (files). */
export function recordsOfKind(kind: RecordKind, source?: Source): Filter {
  const must: Condition[] = [{ key: RECORD_FIELDS.kind, match: { value: kind } }];
  if (source !== undefined) must.push({ key: RECORD_FIELDS.source, match: { value: source } });
  return { must };
}

/** Chunks that carry a dense vector. */
export const EMBEDDED_CHUNKS: Filter = {
  must: [{ key: CHUNK_FIELDS.embedded, match: { value: true } }],
};

function matchAny(key: string, values: readonly string[]): Condition {
  // A one-value list as `value`: the same meaning, and accepted by every Qdrant version.
  return values.length === 1
    ? { key, match: { value: values[0] as string } }
    : { key, match: { any: [...values] } };
}
