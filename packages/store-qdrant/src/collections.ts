import { CHARACTER_TERM_WEIGHT, EngramError, newerLayoutError } from "@engram/core/driver";
import type { Schemas } from "@qdrant/js-client-rest";
import type { Bm25Params } from "./options.js";
import { type Caller, classify } from "./requests.js";

/**
 * The store's two collections: what their points and indexes look like, the layout version and
 * BM25 weighting recorded in their meta, and creating, checking and dropping them.
 */

/** Name of the chunk collection's dense (embedding) vector. */
export const DENSE_VECTOR = "dense";
/** Name of the chunk collection's sparse BM25 vector. */
export const SPARSE_VECTOR = "bm25";

/**
 * What a point of the records collection holds: a file record, a meta value, a key-value entry, or
 * (layout 1) an embedding cache entry, moved into key-value entries when the store opens.
 */
export const RECORD_KINDS = ["file", "meta", "kv", "cache"] as const;
/** One of {@link RECORD_KINDS}. */
export type RecordKind = (typeof RECORD_KINDS)[number];

/** Meta key of the store's layout: its version and the BM25 parameters its vectors were built with. */
export const LAYOUT_META_KEY = "store-qdrant.layout";

/**
 * Layout version this package writes. A collection recording a newer one is refused untouched;
 * bump it (and convert old data on open) whenever a payload field changes meaning.
 */
export const LAYOUT_VERSION = 1;

/** A payload index to create. */
export interface PayloadIndex {
  field_name: string;
  field_schema: Schemas["PayloadFieldSchema"];
}

/** Indexes of the chunk collection: every field a filter or a delete uses. */
export const CHUNK_INDEXES: readonly PayloadIndex[] = [
  { field_name: "path", field_schema: "keyword" },
  {
    field_name: "path_prefixes",
    field_schema: { type: "integer", lookup: true, range: false },
  },
  { field_name: "tier", field_schema: "keyword" },
  { field_name: "source", field_schema: "keyword" },
  { field_name: "embedded", field_schema: "bool" },
];

/** The body that creates the records collection: named vectors, none of them (payload only). */
export const RECORDS_COLLECTION_CONFIG: Schemas["CreateCollection"] = { vectors: {} };

/** Indexes of the records collection (`key_folders`: counting and deleting keys by prefix). */
export const RECORD_INDEXES: readonly PayloadIndex[] = [
  { field_name: "kind", field_schema: "keyword" },
  { field_name: "source", field_schema: "keyword" },
  { field_name: "key_folders", field_schema: "keyword" },
];

/** The body that creates the chunk collection for `dims`-dimensional vectors (null: none). */
export function chunkCollectionConfig(dims: number | null): Schemas["CreateCollection"] {
  return {
    // An empty map of named vectors (not a missing field): points then take `vector: {…}` maps.
    vectors: dims === null ? {} : { [DENSE_VECTOR]: { size: dims, distance: "Cosine" } },
    sparse_vectors: { [SPARSE_VECTOR]: { modifier: "idf" } },
  };
}

/** What an existing collection's config says about it. */
export interface ChunkCollectionShape {
  /** Dimensions of the dense vector, or null when it has none. */
  dims: number | null;
  /** Problems that make it not an engram chunk collection (empty when it is one). */
  problems: string[];
}

/** Read the dims of a chunk collection from its info, and check it is one of ours. */
export function chunkCollectionShape(info: Schemas["CollectionInfo"]): ChunkCollectionShape {
  const { vectors, sparse_vectors } = info.config.params;
  const problems: string[] = [];
  const sparse = sparse_vectors?.[SPARSE_VECTOR];
  if (!sparse) problems.push(`no sparse vector "${SPARSE_VECTOR}"`);
  else if (sparse.modifier !== "idf") {
    problems.push(`sparse vector "${SPARSE_VECTOR}" lacks the idf modifier`);
  }
  if (vectors && typeof vectors.size === "number") {
    return { dims: null, problems: [...problems, "an unnamed dense vector"] };
  }
  const dense = (vectors as Record<string, Schemas["VectorParams"] | undefined> | undefined)?.[
    DENSE_VECTOR
  ];
  if (dense && dense.distance !== "Cosine") {
    problems.push(`dense vector distance ${dense.distance}, not Cosine`);
  }
  return { dims: typeof dense?.size === "number" ? dense.size : null, problems };
}

/**
 * What the layout meta records: the store's layout version and its BM25 weighting, including the
 * term-frequency weight of single Han and kana characters (core's `CHARACTER_TERM_WEIGHT`; absent
 * in collections written before it existed, whose characters were weighted 1).
 */
export interface Layout {
  version: number;
  bm25: Bm25Params & { characterWeight?: number };
}

/** The BM25 weighting this store's sparse vectors use, as the layout records it. */
function weighting(bm25: Bm25Params): Layout["bm25"] {
  return { ...bm25, characterWeight: CHARACTER_TERM_WEIGHT };
}

/** The layout meta value this store writes. */
export function layoutValue(bm25: Bm25Params): string {
  return JSON.stringify({ version: LAYOUT_VERSION, bm25: weighting(bm25) } satisfies Layout);
}

/**
 * Compare the layout a collection's meta records with this store's: `write` when nothing is
 * recorded yet (or only the BM25 settings changed while no chunk is stored), else `ok`. A newer
 * layout version is refused (the data may mean something this package does not know). Other BM25
 * weighting is refused while chunks exist: their sparse vectors were weighted with the old one, and
 * mixing both would skew every ranking.
 * @throws EngramError `STORE_FAILED` (newer layout) or `CONFIG_INVALID` (other weighting).
 */
export function checkLayout(
  recorded: string | undefined,
  bm25: Bm25Params,
  chunks: number,
  where: string,
): "ok" | "write" {
  if (recorded === undefined) return "write";
  let layout: Partial<Layout> = {};
  try {
    layout = JSON.parse(recorded) as Partial<Layout>;
  } catch {}
  if (!(typeof layout.version === "number" && layout.version <= LAYOUT_VERSION)) {
    throw newerLayoutError({
      store: `Qdrant index ${where}`,
      found: recorded,
      reader: `@engram/store-qdrant (layout ${LAYOUT_VERSION})`,
      instead: "point store.options.collection at a new collection.",
    });
  }
  const old = layout.bm25;
  const mine = weighting(bm25);
  const sameParams =
    old && old.k1 === mine.k1 && old.b === mine.b && old.avgTerms === mine.avgTerms;
  if (sameParams && old.characterWeight === mine.characterWeight) return "ok";
  if (chunks === 0) return "write";
  const rebuild =
    "give store.options.collection a new name and run `engram sync` (or delete the collection and sync), so every chunk is weighted the same way.";
  throw new EngramError(
    "CONFIG_INVALID",
    sameParams
      ? `The Qdrant index ${where} was written with single Han and kana characters weighted ${old.characterWeight ?? 1} in BM25; this engram weighs them ${mine.characterWeight}, so that they count by presence.`
      : `The Qdrant index ${where} was built with BM25 settings ${JSON.stringify(old)}, not ${JSON.stringify(mine)}.`,
    {
      hint: sameParams
        ? `To search it, ${rebuild}`
        : `Use the settings it was built with (store.options.bm25), or ${rebuild}`,
    },
  );
}

/**
 * The collection's info, creating it (with its payload indexes) when missing, and the payload
 * indexes a collection written by an older version lacks. Another process creating it at the
 * same moment is fine: a 409 means it exists now.
 */
export async function ensureCollection(
  call: Caller,
  name: string,
  config: Schemas["CreateCollection"],
  indexes: readonly PayloadIndex[],
): Promise<Schemas["CollectionInfo"]> {
  const { exists } = await call("open the index", (client) => client.collectionExists(name));
  if (!exists) await createCollection(call, name, config, indexes);
  const info = await call("open the index", (client) => client.getCollection(name));
  const missing = missingIndexes(info, indexes);
  for (const index of missing) {
    await call("create the index", (client) =>
      client.createPayloadIndex(name, { wait: true, ...index }),
    );
  }
  return missing.length ? call("open the index", (client) => client.getCollection(name)) : info;
}

/** The payload indexes of `indexes` the collection does not have. */
export function missingIndexes(
  info: Pick<Schemas["CollectionInfo"], "payload_schema">,
  indexes: readonly PayloadIndex[],
): PayloadIndex[] {
  const have = new Set(Object.keys(info.payload_schema ?? {}));
  return indexes.filter((index) => !have.has(index.field_name));
}

/** Create a collection (an existing one is left as is) and its payload indexes. */
export async function createCollection(
  call: Caller,
  name: string,
  config: Schemas["CreateCollection"],
  indexes: readonly PayloadIndex[],
): Promise<void> {
  await call("create the index", (client) =>
    tolerate(409, () => client.createCollection(name, config)),
  );
  for (const index of indexes) {
    await call("create the index", (client) =>
      client.createPayloadIndex(name, { wait: true, ...index }),
    );
  }
}

/** Delete a collection; one that is already gone is fine. */
export async function dropCollection(call: Caller, name: string, action: string): Promise<void> {
  await call(action, (client) => tolerate(404, () => client.deleteCollection(name)));
}

/** Run `fn`, treating an HTTP `status` answer as done. */
async function tolerate(status: number, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    const failure = classify(error);
    if (failure.kind !== "http" || failure.status !== status) throw error;
  }
}
