import {
  assertChunksFit,
  assertQueryDims,
  assertUniqueChunkIds,
  EngramError,
  type FileRecord,
  type MemoryStore,
  resultLimit,
  type SearchFilter,
  type Source,
  type StoreBatch,
  type StoreCapabilities,
  type StoredChunk,
  type StoreHit,
  type StoreStats,
  storeClosedError,
  storeNotInitialisedError,
} from "@engram/core/driver";
import { type Connection, connect, Session, type Table } from "@lancedb/lancedb";
import { guarded, isMissingFile, rebuildHint } from "./errors.js";
import { ensureFulltextIndex, searchText, unindexedTextRows } from "./fulltext.js";
import { LanceDbKeyValue, writeEntries } from "./key-value.js";
import { folderBytes, type Location, parseLocation } from "./location.js";
import { Maintenance, type Tables } from "./maintenance.js";
import { MetaReader, readMeta, upsertMeta } from "./meta.js";
import type { LanceDbStoreOptions } from "./options.js";
import { type ResolvedOptions, resolveOptions } from "./options-check.js";
import type { Scored } from "./ranking.js";
import {
  type ChunkRow,
  type ChunkWriteRow,
  compareLocation,
  type FileRow,
  toChunkRow,
  toFileRecord,
  toFileRow,
  toStoredChunk,
} from "./rows.js";
import {
  CHUNK_COLUMNS,
  chunksSchema,
  dimsOf,
  filesSchema,
  keyValueSchema,
  metaSchema,
  missingColumns,
  OLD_CACHE_TABLE,
  SCHEMA_META_KEY,
  SCHEMA_VERSION,
  TABLES,
  VECTOR_COLUMN,
} from "./schema.js";
import { Serial } from "./serial.js";
import { column, ensureFilterIndexes, equals, isIn } from "./sql.js";
import { searchVector } from "./vectors.js";

/**
 * Meta key holding the chunk rows inserted or deleted since the full-text index was last built,
 * saved at `close()`, so the next process knows how stale the index statistics are.
 */
const STALE_META_KEY = "store-lancedb.fulltext-stale";

/**
 * Bounds of LanceDB's caches for this store's connection: the indexes searches read (full text,
 * vectors, filters: 24 MB on disk at 30,000 chunks) and file metadata. LanceDB's defaults (6 GB and
 * 1 GB) are sized for a server; a long-lived engram process (watch, an MCP server) rebuilds its
 * full-text index many times and should not grow toward them.
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
 * An engram store on LanceDB: four tables (meta, files, chunks, key-value) in a local folder
 * or on object storage. Full-text search is LanceDB's BM25 index over core's analysed terms;
 * vector search is exact cosine until the table is large enough for an HNSW index. Reads run
 * concurrently; every change goes through one queue.
 *
 * Each table commits atomically, but a `write` spans two tables (chunks, then files), so
 * `capabilities.atomicWrites` is false: a crash between them leaves a file's record stale, and the
 * next sync re-indexes it.
 */
export class LanceDbStore implements MemoryStore {
  readonly kind = "lancedb";
  readonly capabilities: StoreCapabilities;
  readonly keyValue: LanceDbKeyValue;
  /** Where the database lives. */
  readonly location: Location;

  readonly #options: ResolvedOptions;
  readonly #serial = new Serial();
  readonly #maintenance: Maintenance;
  readonly #meta = new MetaReader();
  /** The stale-row count stored in meta when the store opened (see {@link STALE_META_KEY}). */
  #savedStaleRows = 0;
  #open: Open | undefined;
  #opening: Promise<void> | undefined;
  #closed = false;

  /** @throws EngramError `CONFIG_INVALID` for an empty URI or an option out of range. */
  constructor(options: LanceDbStoreOptions) {
    this.#options = resolveOptions(options);
    this.location = parseLocation(this.#options.uri);
    this.#maintenance = new Maintenance(this.#options);
    this.capabilities = {
      vector: true,
      fulltext: true,
      keyValue: true,
      persistent: this.location.kind !== "memory",
      atomicWrites: false,
    };
    this.keyValue = new LanceDbKeyValue({
      read: (action, fn) => this.#read(action, (open) => fn(open.keyValue)),
      change: (action, fn) =>
        this.#change(action, async (open) => {
          const result = await fn(open.keyValue);
          await this.#maintenance.afterChange(open);
          return result;
        }),
      committed: () => this.#maintenance.noteCommit("keyValue"),
    });
  }

  async init(): Promise<void> {
    this.#assertNotClosed();
    if (this.#open) return;
    this.#opening ??= this.#connect().finally(() => {
      this.#opening = undefined;
    });
    await this.#opening;
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.#read("read meta", ({ meta }) => this.#meta.get(meta, key));
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.#change("write meta", async (open) => {
      await upsertMeta(open.meta, key, value);
      this.#maintenance.noteCommit("meta");
      await this.#maintenance.afterChange(open);
    });
  }

  async reset(options: { dims: number | null }): Promise<void> {
    const { dims } = options;
    if (dims !== null && !(Number.isInteger(dims) && dims > 0)) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `reset: dims must be a positive integer or null, got ${dims}.`,
        { hint: "Pass the embedder's dimensions, or null for a keyword-only index." },
      );
    }
    await this.#change("reset the index", async (open) => {
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

  async dims(): Promise<number | null> {
    return this.#read("read the index dimensions", async ({ chunks }) =>
      dimsOf(await chunks.schema()),
    );
  }

  async getFile(path: string): Promise<FileRecord | undefined> {
    return this.#read("read a file record", async ({ files }) => {
      const rows = (await files.query().where(equals("path", path)).toArray()) as FileRow[];
      return rows[0] && toFileRecord(rows[0]);
    });
  }

  async listFiles(filter?: { source?: Source }): Promise<FileRecord[]> {
    return this.#read("list files", async ({ files }) => {
      let query = files.query();
      if (filter?.source !== undefined) query = query.where(equals("source", filter.source));
      return ((await query.toArray()) as FileRow[]).map(toFileRecord);
    });
  }

  /**
   * Deletes, then upserts, then touches, as two commits: the chunks table first (one merge that
   * replaces every chunk of the deleted and upserted paths), then the files table (one merge). The
   * whole batch is checked before anything is written, so a refused batch changes nothing.
   */
  async write(batch: StoreBatch): Promise<void> {
    await this.#change("write to the index", async (open) => {
      const dims = dimsOf(await open.chunks.schema());
      const upserts = batch.upserts ?? [];
      for (const { file, chunks } of upserts) assertChunksFit(file, chunks, dims);
      // A path upserted twice: the last upsert wins, as it would applied in order.
      const latest = new Map(upserts.map((upsert) => [upsert.file.path, upsert]));
      const chunks = [...latest.values()].flatMap((upsert) => upsert.chunks);
      assertUniqueChunkIds(chunks);
      const deletes = batch.deletes ?? [];
      await this.#writeChunks(
        open,
        [...new Set([...deletes, ...latest.keys()])],
        chunks.map((chunk) => toChunkRow(chunk, dims !== null)),
      );
      await this.#writeFiles(
        open,
        deletes,
        [...latest.values()].map((upsert) => upsert.file),
        batch.touches ?? [],
      );
      await this.#maintenance.afterChange(open);
    });
  }

  async getChunks(path: string): Promise<StoredChunk[]> {
    return this.#read("read chunks", async ({ chunks }) => {
      const rows = (await chunks
        .query()
        .where(equals("path", path))
        .select([...CHUNK_COLUMNS])
        .toArray()) as ChunkRow[];
      return rows.sort(compareLocation).map(toStoredChunk);
    });
  }

  async searchText(
    terms: readonly string[],
    k: number,
    filter?: SearchFilter,
  ): Promise<StoreHit[]> {
    const limit = resultLimit(k);
    if (limit === 0) return [];
    return this.#read("search the index", async ({ chunks }) =>
      toHits(await searchText(chunks, terms, limit, filter)),
    );
  }

  async searchVector(vector: Float32Array, k: number, filter?: SearchFilter): Promise<StoreHit[]> {
    return this.#read("search the index", async ({ chunks }) => {
      const dims = dimsOf(await chunks.schema());
      if (dims === null) return [];
      assertQueryDims(vector, dims);
      const limit = resultLimit(k);
      if (limit === 0) return [];
      return toHits(await searchVector(chunks, vector, limit, filter));
    });
  }

  async stats(): Promise<StoreStats> {
    return this.#read("read index statistics", async (open) => {
      const { files, chunks } = open;
      const hasVectors = dimsOf(await chunks.schema()) !== null;
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
   * Bring everything up to date now: rebuild the full-text index (exact BM25 statistics), compact
   * every table, prune versions older than `versionRetentionMs`, merge new vectors into the vector
   * index, and build that index if the table has reached `vectorIndexMinRows`. The store does each
   * of these by itself when due; call this after a bulk load, or before measuring.
   */
  async optimize(): Promise<void> {
    await this.#change("optimize the index", (open) => this.#maintenance.optimizeAll(open));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#opening?.catch(() => undefined);
    await this.#serial.idle();
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
    closeAll(open);
  }

  /** Connect, create missing tables, check the layout, and move a version-1 embedding cache. */
  async #connect(): Promise<void> {
    const { uri, storageOptions, readConsistencySeconds } = this.#options;
    const open = await guarded(this.location, "open the index", async () => {
      const db = await connect(
        uri,
        { storageOptions, readConsistencyInterval: readConsistencySeconds },
        new Session(INDEX_CACHE_BYTES, METADATA_CACHE_BYTES),
      );
      try {
        const names = new Set(await db.tableNames());
        const table = async (name: string, schema: ReturnType<typeof metaSchema>) => {
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
        const open: Open = {
          db,
          meta: await table(TABLES.meta, metaSchema()),
          files: await table(TABLES.files, filesSchema()),
          chunks: await table(TABLES.chunks, chunksSchema(null)),
          keyValue: await table(TABLES.keyValue, keyValueSchema()),
        };
        await this.#checkSchemaVersion(open.meta);
        if (names.has(OLD_CACHE_TABLE)) await moveEmbeddingCache(db, open.keyValue);
        await ensureIndexes(open.chunks);
        // Deleted rows are invisible in the index's numbers, so the last writer saved its count.
        const saved = Number(await readMeta(open.meta, STALE_META_KEY)) || 0;
        this.#savedStaleRows = saved;
        this.#maintenance.restart(Math.max(saved, await unindexedTextRows(open.chunks)));
        return open;
      } catch (error) {
        db.close();
        throw error;
      }
    });
    this.#open = open;
  }

  /** Record the layout version in a new database; refuse one written by a newer package. */
  async #checkSchemaVersion(meta: Table): Promise<void> {
    const found = await readMeta(meta, SCHEMA_META_KEY);
    if (found === undefined) {
      await upsertMeta(meta, SCHEMA_META_KEY, String(SCHEMA_VERSION));
      return;
    }
    const version = Number(found);
    if (!Number.isInteger(version) || version > SCHEMA_VERSION) {
      throw new EngramError(
        "STORE_FAILED",
        `The index at ${this.location.uri} has layout version ${found}, which this @engram/store-lancedb (version ${SCHEMA_VERSION}) does not understand.`,
        { hint: `Upgrade engram, or: ${rebuildHint(this.location)}` },
      );
    }
    // An older layout is brought up to date as it opens (see `moveEmbeddingCache`).
    if (version < SCHEMA_VERSION) await upsertMeta(meta, SCHEMA_META_KEY, String(SCHEMA_VERSION));
  }

  /** Replace every chunk of `paths` with `rows` in one commit (or delete them, with no rows). */
  async #writeChunks(open: Open, paths: string[], rows: ChunkWriteRow[]): Promise<void> {
    if (rows.length === 0) {
      for (let i = 0; i < paths.length; i += PATHS_PER_STATEMENT) {
        const { numDeletedRows } = await open.chunks.delete(
          isIn("path", paths.slice(i, i + PATHS_PER_STATEMENT)),
        );
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
  async #writeFiles(
    open: Open,
    deletes: readonly string[],
    upserts: readonly FileRecord[],
    touches: readonly FileRecord[],
  ): Promise<void> {
    const state = new Map<string, FileRecord>();
    if (touches.length) {
      const paths = [...new Set(touches.map((file) => file.path))];
      for (let i = 0; i < paths.length; i += PATHS_PER_STATEMENT) {
        const rows = (await open.files
          .query()
          .where(isIn("path", paths.slice(i, i + PATHS_PER_STATEMENT)))
          .toArray()) as FileRow[];
        for (const row of rows) state.set(row.path, toFileRecord(row));
      }
    }
    for (const path of deletes) state.delete(path);
    for (const file of upserts) state.set(file.path, file);
    for (const touch of touches) {
      const current = state.get(touch.path);
      if (current) state.set(touch.path, { ...current, mtimeMs: touch.mtimeMs });
    }
    const gone = [...new Set(deletes)].filter((path) => !state.has(path));
    if (state.size === 0) {
      for (let i = 0; i < gone.length; i += PATHS_PER_STATEMENT) {
        await open.files.delete(isIn("path", gone.slice(i, i + PATHS_PER_STATEMENT)));
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
    if (location.kind === "local" && location.folder !== undefined) {
      return folderBytes(location.folder);
    }
    let total = 0;
    for (const table of tablesOf(open)) {
      total += (await table.stats()).totalBytes;
    }
    return total;
  }

  /**
   * Run a read against the open tables; failures become EngramErrors. A read whose version lost
   * its files while it ran (pruned by this store's upkeep or another process's) runs once more on
   * the latest version: superseded versions are pruned right away, so that race is expected.
   */
  async #read<T>(action: string, fn: (open: Open) => Promise<T>): Promise<T> {
    const open = this.#use(action);
    return guarded(this.location, action, async () => {
      try {
        return await fn(open);
      } catch (error) {
        if (!isMissingFile(error)) throw error;
        await Promise.all(tablesOf(open).map((table) => table.checkoutLatest()));
        return fn(open);
      }
    });
  }

  /**
   * Run a change in the write queue; failures become EngramErrors. A change accepted before
   * `close()` still runs: close waits for the queue before it releases the tables.
   */
  async #change<T>(action: string, fn: (open: Open) => Promise<T>): Promise<T> {
    const open = this.#use(action);
    return this.#serial.run(() => guarded(this.location, action, () => fn(open)));
  }

  #use(action: string): Open {
    this.#assertNotClosed();
    if (!this.#open) {
      throw storeNotInitialisedError("LanceDB store", action);
    }
    return this.#open;
  }

  #assertNotClosed(): void {
    if (this.#closed) {
      throw storeClosedError(`LanceDB store at ${this.location.uri}`);
    }
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
    const entries: Array<readonly [string, Uint8Array]> = [];
    for await (const batch of old.query().select(["key", "vector"])) {
      const keys = batch.getChild("key");
      const vectors = batch.getChild("vector");
      if (!keys || !vectors) continue;
      for (let i = 0; i < batch.numRows; i++) {
        const vector = Float32Array.from(vectors.get(i)?.toArray() ?? []);
        entries.push([`embedding/0/${String(keys.get(i))}`, new Uint8Array(vector.buffer)]);
      }
    }
    if (entries.length) await writeEntries(keyValue, entries);
  } finally {
    old.close();
  }
  await db.dropTable(OLD_CACHE_TABLE);
}

/** Release the tables and the connection (LanceDB's close is synchronous and idempotent). */
function closeAll(open: Open): void {
  for (const table of tablesOf(open)) table.close();
  open.db.close();
}

/** The chunks table's full-text index and filter indexes, created where missing. */
async function ensureIndexes(chunks: Table): Promise<void> {
  await ensureFulltextIndex(chunks);
  await ensureFilterIndexes(chunks);
}

function tablesOf(open: Open): Table[] {
  return [open.meta, open.files, open.chunks, open.keyValue];
}

function toHits(scored: Scored[]): StoreHit[] {
  return scored.map(({ row, score }) => ({ chunk: toStoredChunk(row), score }));
}
