import type { ChunkRecord, FileRecord, SearchFilter, Source } from "@engram/core/driver";
import type { Schemas } from "@qdrant/js-client-rest";
import type { RecordKind } from "./collections.js";
import { chunkPointId, prefixKey } from "./ids.js";

/** A Qdrant filter (the JSON body's `filter`). */
export type Filter = Schemas["Filter"];
/** One condition of a {@link Filter}. */
export type Condition = Schemas["Condition"];

/**
 * The chunks a {@link SearchFilter} keeps, as a Qdrant filter over the payload-indexed fields:
 * `tier` and `source` match any listed value, and a path prefix matches one key of the chunk's
 * `path_prefixes` (see `pathPrefixKeys` in `ids.ts`). Undefined when nothing is restricted (absent
 * fields, an empty prefix). The prefix is literal and case-sensitive. A filter with an empty tier
 * or source list never gets here: core's `defineStore` answers it with no hits.
 */
export function searchFilter(filter: SearchFilter | undefined): Filter | undefined {
  const must: Condition[] = [];
  if (filter?.tiers) must.push(matchAny("tier", filter.tiers));
  if (filter?.sources) must.push(matchAny("source", filter.sources));
  if (filter?.pathPrefix) {
    must.push({ key: "path_prefixes", match: { value: prefixKey(filter.pathPrefix) } });
  }
  return must.length === 0 ? undefined : { must };
}

/** Chunks of any of `paths` (a non-empty list). */
export function chunksOfPaths(paths: readonly string[]): Filter {
  return { must: [matchAny("path", paths)] };
}

/**
 * What is left of the upserted files' previous versions once their new chunks are written: their
 * chunks except the new points, as filters keeping at most `maxIds` ids each (a file with more
 * chunks than that gets a filter of its own), so no request body grows with the whole batch.
 */
export function staleChunks(
  upserts: ReadonlyArray<{ file: FileRecord; chunks: readonly ChunkRecord[] }>,
  maxIds: number,
): Filter[] {
  const filters: Filter[] = [];
  let paths: string[] = [];
  let keep: string[] = [];
  const flush = () => {
    const filter: Filter = { must: [matchAny("path", paths)] };
    if (keep.length) filter.must_not = [{ has_id: keep }];
    filters.push(filter);
    paths = [];
    keep = [];
  };
  for (const { file, chunks } of upserts) {
    if (paths.length > 0 && keep.length + chunks.length > maxIds) flush();
    paths.push(file.path);
    for (const chunk of chunks) keep.push(chunkPointId(chunk.id));
  }
  if (paths.length > 0) flush();
  return filters;
}

/** Records of one kind (file, meta or cache), optionally of one source (files). */
export function recordsOfKind(kind: RecordKind, source?: Source): Filter {
  const must: Condition[] = [{ key: "kind", match: { value: kind } }];
  if (source !== undefined) must.push({ key: "source", match: { value: source } });
  return { must };
}

/** Chunks that carry a dense vector. */
export const EMBEDDED_CHUNKS: Filter = {
  must: [{ key: "embedded", match: { value: true } }],
};

function matchAny(key: string, values: readonly string[]): Condition {
  // A one-value list as `value`: the same meaning, and accepted by every Qdrant version.
  return values.length === 1
    ? { key, match: { value: values[0] as string } }
    : { key, match: { any: [...values] } };
}
