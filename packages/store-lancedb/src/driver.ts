import {
  batches,
  type CheckedBatch,
  EngramError,
  type FileRecord,
  folderBytes,
  type IndexedChunk,
  newerLayoutError,
  type SearchFilter,
  type Source,
  type StoreCapabilities,
  type StoreDriver,
  type StoredChunk,
  type StoreHit,
  type StoreStats,
} from "@engram/core/driver";
import { type Connection, connect, Index, Session, type Table } from "@lancedb/lancedb";
import type { Schema } from "apache-arrow";
import { readById, scanChunks } from "./chunk-scan.js";
import { isMissingFile, rebuildHint, toEngramError } from "./errors.js";
import { fulltextIndex, searchText, unindexedTextRows } from "./fulltext.js";
import { LanceDbKeyValue, MetaReader, readMeta, upsertMeta, writeEntries } from "./key-value.js";
import { Maintenance, type Tables } from "./maintenance.js";
import {
  type LanceDbStoreOptions,
  type Location,
  parseLocation,
  type ResolvedOptions,
  resolveOptions,
} from "./options.js";
import {
  CHUNK_COLUMN,
  type ChunkRow,
  chunksSchema,
  dimsOf,
  type FileRow,
  filesSchema,
  keyValueSchema,
  metaSchema,
  missingColumns,
  OLD_CACHE_TABLE,
  SCHEMA_META_KEY,
  SCHEMA_VERSION,
  TABLES,
  TERMS_COLUMN,
  toChunkRow,
  toFileRecord,
  toFileRow,
  toStoredChunk,
  VECTOR_COLUMN,
} from "./schema.js";
import { column, equals, FILTER_COLUMNS, isIn } from "./sql.js";
import { ChunksShape, searchVector } from "./vectors.js";

/**
 * Meta key holding the chunk rows inserted or deleted since the full-text index was last built,
 * saved at `close()`, so the next process knows how stale the index statistics are.
 */
const STALE_META_KEY = "store-lancedb.fulltext-stale";

/** Meta key of the store's generation (see `generation()`). */
export const GENERATION_META_KEY = "store-lancedb.generation";

/**
 * Bounds of LanceDB's caches for this store's connection: the indexes searches read (full text,
 * vectors, filters) and file metadata. LanceDB's defaults (6 GB and 1 GB) are sized for a server;
 * a long-lived engram process (watch, an MCP server) rebuilds its full-text index many times and
 * should not grow toward them.
 */
const INDEX_CACHE_BYTES = 512n << 20n;
const METADATA_CACHE_BYTES = 64n << 20n;

/** Paths per `IN (…)` list when deleting or replacing chunks of many files. */
const PATHS_PER_STATEMENT = 1000;

/** The open connection and its tables. */
interface Open extends Tables {
  db: Connection;
}

/**
 * The LanceDB driver behind `createLanceDbStore` (core's `defineStore` adds the guards, argument
 * checks, tie order and error mapping): four tables (meta, files, chunks, key-value) in a local
 * folder or on object storage. Reads run concurrently; every change goes through one queue, which
 * `close()` waits for.
 *
 * Each table commits atomically, but a `write` spans two tables (chunks, then files), so
 * `capabilities.atomicWrites` is false: a crash between them leaves a file's record stale, and the
 * next sync re-indexes it.
 */
export class LanceDbDriver implements StoreDriver {
  readonly kind = "lancedb";
  readonly name: string;
  readonly capabilities: StoreCapabilities;
  readonly keyValue: LanceDbKeyValue;
  /** Where the database lives. */
  readonly location: Location;
  /** See `LanceDbStoreOptions.memoryIndexMaxChunks`. */
  readonly memoryIndexMaxChunks: number;
  /** Reads by id cost a query each: the copy keeps what it scanned (see `chunk-scan.ts`). */
  readonly memoryIndexKeepsChunks = true;

  readonly #options: ResolvedOptions;
  readonly #maintenance: Maintenance;
  readonly #meta = new MetaReader();
  readonly #shape = new ChunksShape();
  /** The tail of the change queue. */
  #queue: Promise<unknown> = Promise.resolve();
  /** The stale-row count stored in meta when the store opened (see {@link STALE_META_KEY}). */
  #savedStaleRows = 0;
  #open: Open | undefined;

  /** @throws EngramError `CONFIG_INVALID` for an empty URI or an option out of range. */
  constructor(options: LanceDbStoreOptions) {
    this.#options = resolveOptions(options);
    this.location = parseLocation(this.#options.uri);
    this.memoryIndexMaxChunks = this.#options.memoryIndexMaxChunks;
    this.name = `LanceDB store at ${this.location.uri}`;
    this.#maintenance = new Maintenance(this.#options);
    this.capabilities = {
      vector: true,
      fulltext: true,
      keyValue: true,
      persistent: this.location.kind !== "memory",
      atomicWrites: false,
    };
    this.keyValue = new LanceDbKeyValue({
      read: (fn) => this.#read((open) => fn(open.keyValue)),
      change: (fn) =>
        this.#change(async (open) => {
          const result = await fn(open.keyValue);
          await this.#maintenance.afterChange(open);
          return result;
        }),
      committed: () => this.#maintenance.noteCommit("keyValue"),
    });
  }

  /** Connect, bring an older layout up to date, and create missing tables and indexes. */
  async open(): Promise<void> {
    const { uri, storageOptions, readConsistencySeconds } = this.#options;
    const db = await connect(
      uri,
      { storageOptions, readConsistencyInterval: readConsistencySeconds },
      new Session(INDEX_CACHE_BYTES, METADATA_CACHE_BYTES),
    );
    try {
      const names = new Set(await db.tableNames());
      const table = async (name: string, schema: Schema) => {
        const opened = names.has(name)
          ? await db.openTable(name)
          : await db.createEmptyTable(name, schema, { mode: "create", existOk: true });
        const missing = missingColumns(schema, await opened.schema());
        if (missing.length) {
          throw new EngramError(
            "STORE_FAILED",
            `The LanceDB table "${name}" at ${uri} is not an engram table (it lacks ${missing.join(", ")}).`,
            { hint: `Point the store at a folder of its own, or: ${rebuildHint(this.location)}` },
          );
        }
        return opened;
      };
      const meta = await table(TABLES.meta, metaSchema());
      const layout = await this.#layout(meta);
      if (layout < SCHEMA_VERSION && names.has(TABLES.chunks)) {
        // Layouts 1 and 2 kept each chunk field in a column, 1 to 3 vectors as written. The index
        // is a cache of the files: it starts over empty, with its dimensions, and the next sync
        // rebuilds it (embeddings come from the key-value map, or from layout 1's cache moved
        // below).
        const old = await db.openTable(TABLES.chunks);
        const dims = dimsOf(await old.schema());
        old.close();
        await db.createEmptyTable(TABLES.files, filesSchema(), { mode: "overwrite" });
        await db.createEmptyTable(TABLES.chunks, chunksSchema(dims), { mode: "overwrite" });
      }
      const open: Open = {
        db,
        meta,
        files: await table(TABLES.files, filesSchema()),
        chunks: await table(TABLES.chunks, chunksSchema(null)),
        keyValue: await table(TABLES.keyValue, keyValueSchema()),
      };
      if (names.has(OLD_CACHE_TABLE)) await moveEmbeddingCache(db, open.keyValue);
      if (layout < SCHEMA_VERSION) await upsertMeta(meta, SCHEMA_META_KEY, String(SCHEMA_VERSION));
      await ensureIndexes(open.chunks);
      // Deleted rows are invisible in the index's numbers, so the last writer saved its count.
      const saved = Number(await readMeta(open.meta, STALE_META_KEY)) || 0;
      this.#savedStaleRows = saved;
      this.#maintenance.restart(Math.max(saved, await unindexedTextRows(open.chunks)));
      this.#open = open;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Waits for the change queue, catches the indexes up (best effort), and releases the tables. */
  async close(): Promise<void> {
    await this.#queue;
    const open = this.#open;
    this.#open = undefined;
    if (!open) return;
    // Best effort: an index left behind is still correct, only slower to search.
    await this.#maintenance.settle(open).catch(() => undefined);
    if (this.#maintenance.staleRows !== this.#savedStaleRows) {
      // Best effort: the count only decides when the next process rebuilds the full-text index.
      await upsertMeta(open.meta, STALE_META_KEY, String(this.#maintenance.staleRows)).catch(
        () => undefined,
      );
    }
    for (const table of tablesOf(open)) table.close();
    open.db.close();
  }

  getMeta(key: string): Promise<string | undefined> {
    return this.#read(({ meta }) => this.#meta.get(meta, key));
  }

  /** See `MemoryStore.getMetas`: one version check of the meta table for every key. */
  getMetas(keys: readonly string[]): Promise<Map<string, string>> {
    return this.#read(({ meta }) => this.#meta.getMany(meta, keys));
  }

  setMeta(key: string, value: string): Promise<void> {
    return this.#change(async (open) => {
      await upsertMeta(open.meta, key, value);
      this.#maintenance.noteCommit("meta");
      await this.#maintenance.afterChange(open);
    });
  }

  reset(dims: number | null): Promise<void> {
    return this.#changeIndex(async (open) => {
      // Files first: a crash in between leaves chunks without files, which core's next sync
      // replaces (it resets again, as the index identity was not yet updated).
      const { files, chunks } = open;
      open.files = await open.db.createEmptyTable(TABLES.files, filesSchema(), {
        mode: "overwrite",
      });
      files.close();
      open.chunks = await open.db.createEmptyTable(TABLES.chunks, chunksSchema(dims), {
        mode: "overwrite",
      });
      chunks.close();
      await ensureIndexes(open.chunks);
      this.#maintenance.restart(0);
    });
  }

  dims(): Promise<number | null> {
    return this.#read(async ({ chunks }) => (await this.#shape.get(chunks)).dims);
  }

  getFile(path: string): Promise<FileRecord | undefined> {
    return this.#read(async ({ files }) => {
      const rows = (await files.query().where(equals("path", path)).toArray()) as FileRow[];
      return rows[0] && toFileRecord(rows[0]);
    });
  }

  listFiles(source: Source | undefined): Promise<FileRecord[]> {
    return this.#read(async ({ files }) => {
      let query = files.query();
      if (source !== undefined) query = query.where(equals("source", source));
      return ((await query.toArray()) as FileRow[]).map(toFileRecord);
    });
  }

  /**
   * Two commits: the chunks table first (one merge that replaces every chunk of the removed
   * paths), then the files table (one merge). defineStore checked the whole batch before.
   */
  write(batch: CheckedBatch): Promise<void> {
    return this.#changeIndex(async (open) => {
      const withVectors = (await this.#shape.get(open.chunks)).dims !== null;
      const rows = batch.upserts.flatMap((upsert) =>
        upsert.chunks.map((chunk) => toChunkRow(chunk, withVectors)),
      );
      await this.#writeChunks(open, batch.removed, rows);
      await this.#writeFiles(open, batch);
    });
  }

  getChunks(path: string): Promise<StoredChunk[]> {
    return this.#read(async ({ chunks }) => {
      const query = chunks.query().where(equals("path", path)).select([CHUNK_COLUMN]);
      return ((await query.toArray()) as Array<{ chunk: string }>).map(toStoredChunk);
    });
  }

  searchText(
    terms: readonly string[],
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    return this.#read(({ chunks }) => searchText(chunks, this.#shape, terms, limit, filter));
  }

  searchVector(
    vector: Float32Array,
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    return this.#read(({ chunks }) => searchVector(chunks, this.#shape, vector, limit, filter));
  }

  stats(): Promise<StoreStats> {
    return this.#read(async (open) => {
      const { files, chunks } = open;
      const hasVectors = (await this.#shape.get(chunks)).dims !== null;
      const stats: StoreStats = {
        files: await files.countRows(),
        chunks: await chunks.countRows(),
        vectors: hasVectors ? await chunks.countRows(`${column(VECTOR_COLUMN)} IS NOT NULL`) : 0,
      };
      const bytes = await this.#bytes(open);
      if (bytes !== undefined) stats.bytes = bytes;
      return stats;
    });
  }

  /**
   * See `MemoryStore.generation`: the counter under {@link GENERATION_META_KEY} (one version
   * check of the meta table). Written last by a write, so a copy read during one carries the
   * generation before it and is read again after; maintenance leaves it alone.
   */
  async generation(): Promise<number> {
    return Number(await this.getMeta(GENERATION_META_KEY)) || 0;
  }

  /** See `MemoryStore.scanChunks` (whole chunks: see {@link memoryIndexKeepsChunks}). */
  async *scanChunks(): AsyncIterable<IndexedChunk[]> {
    const { chunks } = this.#tables();
    yield* scanChunks(chunks, this.#shape);
  }

  async getChunksById(ids: readonly string[]): Promise<StoredChunk[]> {
    const rows = await this.#read(({ chunks }) => readById(chunks, this.#shape, ids, false));
    return rows.map(([chunk]) => chunk);
  }

  /** See `MemoryStore.getVectors`: at unit length, as stored. */
  async getVectors(ids: readonly string[]): Promise<Map<string, Float32Array>> {
    const rows = await this.#read(({ chunks }) => readById(chunks, this.#shape, ids, true));
    const out = new Map<string, Float32Array>();
    for (const [chunk, vector] of rows) if (vector) out.set(chunk.id, vector);
    return out;
  }

  /** See `LanceDbStore.optimize`. */
  optimize(): Promise<void> {
    return this.#change((open) => this.#maintenance.optimizeAll(open));
  }

  failure(error: unknown, action: string): EngramError {
    return toEngramError(error, this.location, action);
  }

  /** The layout version `meta` records (0 for a new database); a newer one than ours is refused. */
  async #layout(meta: Table): Promise<number> {
    const found = await readMeta(meta, SCHEMA_META_KEY);
    const version = Number(found ?? 0);
    if (Number.isInteger(version) && version <= SCHEMA_VERSION) return version;
    throw newerLayoutError({
      store: `index at ${this.location.uri}`,
      found: found ?? "",
      reader: `@engram/store-lancedb (version ${SCHEMA_VERSION})`,
      instead: rebuildHint(this.location),
    });
  }

  /** Replace every chunk of `paths` with `rows` in one commit (or delete them, with no rows). */
  async #writeChunks(open: Open, paths: readonly string[], rows: ChunkRow[]): Promise<void> {
    if (rows.length === 0) {
      for (const some of batches(paths, PATHS_PER_STATEMENT)) {
        const { numDeletedRows } = await open.chunks.delete(isIn("path", some));
        this.#maintenance.noteCommit("chunks", numDeletedRows);
      }
      return;
    }
    // One merge: matching ids are rewritten, new ids inserted, and every other chunk of these paths
    // deleted, so readers never see a file without its chunks. (Paths in one IN list: a merge is
    // one commit, and splitting it would expose the intermediate state.)
    const result = await open.chunks
      .mergeInsert("id")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .whenNotMatchedBySourceDelete({ where: isIn("path", paths) })
      .execute(rows);
    this.#maintenance.noteCommit(
      "chunks",
      result.numInsertedRows + 2 * result.numUpdatedRows + result.numDeletedRows,
    );
  }

  /**
   * Apply deletes, upserts and touches to the files table as one merge. Touches change only the
   * modification time of a record that exists once deletes and upserts are applied.
   */
  async #writeFiles(open: Open, batch: CheckedBatch): Promise<void> {
    const state = new Map<string, FileRecord>();
    const touched = [...new Set(batch.touches.map((file) => file.path))];
    for (const some of batches(touched, PATHS_PER_STATEMENT)) {
      const rows = (await open.files.query().where(isIn("path", some)).toArray()) as FileRow[];
      for (const row of rows) state.set(row.path, toFileRecord(row));
    }
    for (const path of batch.deleted) state.delete(path);
    for (const { file } of batch.upserts) state.set(file.path, file);
    for (const touch of batch.touches) {
      const current = state.get(touch.path);
      if (current) state.set(touch.path, { ...current, mtimeMs: touch.mtimeMs });
    }
    const gone = batch.deleted.filter((path) => !state.has(path));
    if (state.size === 0) {
      for (const some of batches(gone, PATHS_PER_STATEMENT)) {
        await open.files.delete(isIn("path", some));
        this.#maintenance.noteCommit("files");
      }
      return;
    }
    let merge = open.files.mergeInsert("path").whenMatchedUpdateAll().whenNotMatchedInsertAll();
    if (gone.length) merge = merge.whenNotMatchedBySourceDelete({ where: isIn("path", gone) });
    await merge.execute([...state.values()].map(toFileRow));
    this.#maintenance.noteCommit("files");
  }

  /** Bytes on disk: the folder's files when local, the tables' data files when remote. */
  async #bytes(open: Open): Promise<number | undefined> {
    const { location } = this;
    if (location.kind === "memory") return undefined;
    if (location.folder !== undefined) return folderBytes(location.folder);
    let total = 0;
    for (const table of tablesOf(open)) total += (await table.stats()).totalBytes;
    return total;
  }

  /**
   * Run a read against the open tables. A read whose version lost its files while it ran (pruned
   * by this store's upkeep or another process's) runs once more on the latest version: superseded
   * versions are pruned right away, so that race is expected.
   */
  async #read<T>(fn: (open: Open) => Promise<T>): Promise<T> {
    const open = this.#tables();
    try {
      return await fn(open);
    } catch (error) {
      if (!isMissingFile(error)) throw error;
      await Promise.all(tablesOf(open).map((table) => table.checkoutLatest()));
      return fn(open);
    }
  }

  /**
   * Run a change after every change queued before it (the store's bookkeeping — stale counts,
   * commit counters — assumes one change at a time; LanceDB itself would retry conflicting commits).
   */
  #change<T>(fn: (open: Open) => Promise<T>): Promise<T> {
    // Reads of meta that start once the change is done see it (see `MetaReader.committed`).
    const run = this.#queue.then(() => fn(this.#tables())).finally(() => this.#meta.committed());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Run a change of the index (a write, a reset), then add one to the generation (also after a
   * failure part-way: a commit may have landed), then do the upkeep due.
   */
  #changeIndex(fn: (open: Open) => Promise<void>): Promise<void> {
    return this.#change(async (open) => {
      try {
        await fn(open);
      } finally {
        // Added in the table (~11 ms of CPU; a read, then an upsert, ~26 ms) at its latest
        // version (on object storage, a read may lag another process's bump).
        await open.meta.checkoutLatest();
        const { rowsUpdated } = await open.meta.update({
          where: equals("key", GENERATION_META_KEY),
          valuesSql: { value: `CAST(CAST(${column("value")} AS BIGINT) + 1 AS STRING)` },
        });
        if (!rowsUpdated) await upsertMeta(open.meta, GENERATION_META_KEY, "1");
        this.#maintenance.noteCommit("meta");
      }
      await this.#maintenance.afterChange(open);
    });
  }

  #tables(): Open {
    if (!this.#open) throw new Error("the LanceDB store is not open");
    return this.#open;
  }
}

/**
 * Move the entries of layout version 1's `embedding_cache` table into the key-value table, where
 * core's embedding cache finds them (`embedding/<generation>/<key>`, generation 0), then drop
 * the old table: no text is embedded again after the upgrade.
 */
async function moveEmbeddingCache(db: Connection, keyValue: Table): Promise<void> {
  const old = await db.openTable(OLD_CACHE_TABLE);
  try {
    const rows = (await old.query().select(["key", "vector"]).toArray()) as Array<{
      key: string;
      vector: { toArray(): ArrayLike<number> } | null;
    }>;
    const entries = rows.map(({ key, vector }) => {
      const floats = Float32Array.from(vector?.toArray() ?? []);
      return [`embedding/0/${key}`, new Uint8Array(floats.buffer)] as const;
    });
    if (entries.length) await writeEntries(keyValue, entries);
  } finally {
    old.close();
  }
  await db.dropTable(OLD_CACHE_TABLE);
}

/** The chunks table's full-text index and filter indexes, created where missing. */
async function ensureIndexes(chunks: Table): Promise<void> {
  const indexed = new Set((await chunks.listIndices()).flatMap((index) => index.columns));
  if (!indexed.has(TERMS_COLUMN))
    await chunks.createIndex(TERMS_COLUMN, { config: fulltextIndex() });
  for (const name of FILTER_COLUMNS) {
    if (!indexed.has(name)) await chunks.createIndex(name, { config: Index.bitmap() });
  }
}

function tablesOf(open: Open): Table[] {
  return [open.meta, open.files, open.chunks, open.keyValue];
}
