import { statSync } from "node:fs";
import {
  type CheckedBatch,
  type ChunkRecord,
  EngramError,
  type FileRecord,
  IndexFile,
  RECOVERY_META_KEY,
  type SearchFilter,
  type Source,
  type StoreCapabilities,
  type StoreDriver,
  type StoredChunk,
  type StoreHit,
  type StoreStats,
  TermCountPages,
  type TermCountsPage,
  type TermCountsScan,
} from "@engram/core/driver";
import { isInMemory, openConnection, StatementCache } from "./connection.js";
import type { ResolvedOptions } from "./factory.js";
import {
  IndexDamage,
  isDamage,
  quickCheck,
  SQLITE_FILES,
  SQLITE_MAGIC,
  sqliteFailure,
} from "./failures.js";
import { FullTextIndex } from "./fulltext.js";
import { SqliteKeyValue } from "./key-value.js";
import { blobToVector, type ChunkRow, chunkColumns, FILE_COLUMNS, toStoredChunk } from "./rows.js";
import { DIMS_META_KEY, openLayout, TERM_IDS_TABLE, tableExists, VEC_TABLE } from "./schema.js";
import { HexBlobs } from "./terms.js";
import { VectorIndex } from "./vectors.js";

/**
 * Meta key of a counter every transaction that changes the index (write, reset) increments: the
 * store's `generation()`, which tells a copy of the index in some process's memory whether it is
 * still current.
 */
export const GENERATION_META_KEY = "store-sqlite.generation";

/**
 * Chunks per page of {@link SqliteDriver.scanTermCounts}. A page's rows, hex
 * strings and decoded arrays are alive at once: at 100k chunks, pages of 250 instead of 1,000 kept
 * the embedded `bench perf` peak RSS ~8 MB lower (paired runs), for the same search CPU.
 */
const SCAN_PAGE_ROWS = 250;

const SQL = {
  getMeta: "SELECT value FROM meta WHERE key = ?",
  setMeta: `INSERT INTO meta (key, value) VALUES (?, ?)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  deleteMeta: "DELETE FROM meta WHERE key = ?",
  getFile: `SELECT ${FILE_COLUMNS} FROM files WHERE path = ?`,
  listFiles: `SELECT ${FILE_COLUMNS} FROM files ORDER BY path`,
  listFilesOfSource: `SELECT ${FILE_COLUMNS} FROM files WHERE source = ? ORDER BY path`,
  upsertFile: `INSERT INTO files (path, source, tier, hash, mtime_ms, size) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (path) DO UPDATE SET source = excluded.source, tier = excluded.tier,
      hash = excluded.hash, mtime_ms = excluded.mtime_ms, size = excluded.size`,
  touchFile: "UPDATE files SET mtime_ms = ? WHERE path = ?",
  deleteFile: "DELETE FROM files WHERE path = ?",
  chunkRowids: "SELECT rowid FROM chunks WHERE path = ?",
  deleteChunks: "DELETE FROM chunks WHERE path = ?",
  insertChunk: `INSERT INTO chunks (id, path, source, tier, start_line, end_line, headings, text, hash)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  getChunks: `SELECT ${chunkColumns("c")} FROM chunks AS c WHERE c.path = ?`,
  countFiles: "SELECT count(*) AS n FROM files",
  countChunks: "SELECT count(*) AS n FROM chunks",
  bumpGeneration: `INSERT INTO meta (key, value) VALUES ('${GENERATION_META_KEY}', '1')
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
  chunksById: `SELECT ${chunkColumns("c")} FROM chunks AS c
    WHERE c.id IN (SELECT value FROM json_each(?))`,
  vectorsById: `SELECT c.id, v.embedding FROM chunks AS c JOIN chunk_vectors AS v ON v.rowid = c.rowid
    WHERE c.id IN (SELECT value FROM json_each(?))`,
  scanPage: `SELECT c.rowid, hex(t.terms), c.id, c.path, c.tier, c.source, c.start_line,
      c.end_line, hex(v.embedding)
    FROM chunks AS c LEFT JOIN chunk_terms AS t ON t.rowid = c.rowid
      LEFT JOIN chunk_vectors AS v ON v.rowid = c.rowid
    WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?`,
  scanTerms: `SELECT c.rowid, hex(t.terms) FROM chunks AS c
      LEFT JOIN chunk_terms AS t ON t.rowid = c.rowid
    WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?`,
  termNames: `SELECT id, term FROM ${TERM_IDS_TABLE} WHERE id IN (SELECT value FROM json_each(?))`,
} as const;

/** A scanned chunk's id, path, tier, source, start and end line (`SQL.scanPage`). */
type ChunkLabels = [string, string, string, string, number, number];

/** The open connection and what is built on it. */
interface Open {
  sql: StatementCache;
  text: FullTextIndex;
  /** null when the store was opened with `vectors: false`. */
  vectors: VectorIndex | null;
}

/**
 * The driver behind `createSqliteStore` (core's `defineStore` adds the guards, argument and
 * dimension checks, tie order and error mapping): one SQLite file (WAL) with FTS5 over core's
 * analysed terms and a sqlite-vec `vec0` table for cosine KNN. Every method runs synchronously on
 * one better-sqlite3 connection; `write` and `reset` are single transactions. A damaged file is
 * moved aside for an empty index (on open, or by `refresh` after a statement met the damage).
 */
export class SqliteDriver implements StoreDriver {
  readonly kind = "sqlite";
  readonly name: string;
  readonly capabilities: StoreCapabilities;
  /** Both searches rank ties in SQL (or re-sort them) and complete the tie at the cut-off. */
  readonly completeTies = true;
  readonly keyValue: SqliteKeyValue;

  private readonly path: string;
  private readonly options: ResolvedOptions;
  /** The connection, which heals a damaged file (core's `IndexFile`). */
  private readonly file: IndexFile<Open>;

  constructor(options: ResolvedOptions) {
    this.options = options;
    this.path = options.path;
    this.name = `SQLite store ${this.path}`;
    this.capabilities = {
      vector: options.vectors,
      fulltext: true,
      keyValue: true,
      persistent: !isInMemory(this.path),
      atomicWrites: true,
    };
    this.keyValue = new SqliteKeyValue((fn) => this.use("use the key-value map", (o) => fn(o.sql)));
    this.file = new IndexFile<Open>({
      path: this.path,
      persistent: !isInMemory(this.path),
      name: "SQLite store",
      magic: SQLITE_MAGIC,
      files: SQLITE_FILES,
      connect: (check) => this.connect(check),
      disconnect: (open) => open.sql.db.close(),
      isDamage,
      note: (open, recovery) =>
        open.sql.get(SQL.setMeta).run(RECOVERY_META_KEY, JSON.stringify([recovery])),
    });
  }

  /**
   * Open (creating) the database; a damaged one is moved aside for an empty index (when a process
   * that had it open never closed it, `quick_check` runs first).
   */
  async open(): Promise<void> {
    this.file.open();
  }

  /** Reopen a file deleted or replaced since, and replace one found damaged since (`IndexFile`). */
  async refresh(): Promise<boolean> {
    return this.file.refresh();
  }

  async close(): Promise<void> {
    this.file.close();
  }

  /** Open the connection and what is built on it; `check`: run `quick_check` first. */
  private connect(check: boolean): Open {
    let db: ReturnType<typeof openConnection> | undefined;
    try {
      db = openConnection(this.path, this.options);
      if (check) {
        const problem = quickCheck(db);
        if (problem)
          throw new IndexDamage(`${problem}, after a process was stopped without closing it`);
      }
      openLayout(db, this.path);
      const sql = new StatementCache(db);
      const open: Open = {
        sql,
        text: new FullTextIndex(sql),
        vectors: this.options.vectors ? new VectorIndex(sql) : null,
      };
      this.checkVectorSpace(open);
      return open;
    } catch (error) {
      db?.close();
      throw error;
    }
  }

  /** The backend's error as the `EngramError` a user sees (see `failures.ts`). */
  failure(error: unknown, action: string): unknown {
    return sqliteFailure(error, action, this.path);
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.use("read meta", ({ sql }) => readMeta(sql, key));
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.use("write meta", ({ sql }) => sql.get(SQL.setMeta).run(key, value));
  }

  async reset(dims: number | null): Promise<void> {
    this.use("reset the index", (open) =>
      inTransaction(open, () => {
        open.sql.get("DELETE FROM chunks").run();
        open.sql.get("DELETE FROM files").run();
        open.text.clear();
        setDims(open, dims);
      }),
    );
  }

  /**
   * Drop every vector and prepare for `dims` (null: none) in one transaction; files, chunks and
   * the full-text index stay, so keyword search answers while core writes the new vectors.
   */
  async resetVectors(dims: number | null): Promise<void> {
    this.use("reset the vectors", (open) => inTransaction(open, () => setDims(open, dims)));
  }

  async dims(): Promise<number | null> {
    return this.use("read meta", ({ sql }) => readDims(sql));
  }

  async getFile(path: string): Promise<FileRecord | undefined> {
    return this.use(
      "read a file record",
      ({ sql }) => sql.get(SQL.getFile).get(path) as FileRecord | undefined,
    );
  }

  async listFiles(source: Source | undefined): Promise<FileRecord[]> {
    return this.use(
      "list files",
      ({ sql }) =>
        (source === undefined
          ? sql.get(SQL.listFiles).all()
          : sql.get(SQL.listFilesOfSource).all(source)) as FileRecord[],
    );
  }

  /**
   * One immediate transaction. The work is grouped by table for speed: FTS5 flushes its pending
   * changes whenever a delete follows an insert or another virtual table's statement runs in
   * between, which made a mixed order ~10× slower.
   */
  async write(batch: CheckedBatch): Promise<void> {
    this.use("write to the index", (open) => {
      const { sql, vectors } = open;
      inTransaction(open, () => {
        const dims = readDims(sql);
        this.removeChunks(open, batch.removed, dims);
        for (const path of batch.deleted) sql.get(SQL.deleteFile).run(path);
        const inserted: Array<[rowid: number | bigint, chunk: ChunkRecord]> = [];
        for (const { file, chunks } of batch.upserts) {
          sql
            .get(SQL.upsertFile)
            .run(file.path, file.source, file.tier, file.hash, file.mtimeMs, file.size);
          for (const chunk of chunks) inserted.push([insertChunk(sql, chunk), chunk]);
        }
        open.text.insert(inserted);
        if (vectors && dims !== null) {
          for (const [rowid, chunk] of inserted) {
            if (chunk.embedding) vectors.insert(rowid, chunk.embedding, chunk);
          }
        }
        for (const file of batch.touches) sql.get(SQL.touchFile).run(file.mtimeMs, file.path);
      });
    });
  }

  async getChunks(path: string): Promise<StoredChunk[]> {
    return this.use("read chunks", ({ sql }) =>
      (sql.get(SQL.getChunks).all(path) as ChunkRow[]).map(toStoredChunk),
    );
  }

  async searchText(
    terms: readonly string[],
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    return this.use("search the index", ({ text }) =>
      text
        .search(terms, limit, filter)
        .map((row) => ({ chunk: toStoredChunk(row), score: -row.rank })),
    );
  }

  async searchVector(
    vector: Float32Array,
    limit: number,
    filter: SearchFilter | undefined,
  ): Promise<StoreHit[]> {
    return this.use("search the index", ({ vectors }) =>
      (vectors?.nearest(vector, limit, filter) ?? []).map((row) => ({
        chunk: toStoredChunk(row),
        score: 1 - row.distance,
      })),
    );
  }

  async stats(): Promise<StoreStats> {
    return this.use("read index statistics", ({ sql, vectors }) => {
      const count = (query: string) => (sql.get(query).get() as { n: number }).n;
      const stats: StoreStats = {
        files: count(SQL.countFiles),
        chunks: count(SQL.countChunks),
        vectors: vectors && readDims(sql) !== null ? vectors.count() : 0,
      };
      if (!isInMemory(this.path)) stats.bytes = fileSize(this.path) + fileSize(`${this.path}-wal`);
      return stats;
    });
  }

  /** See `MemoryStore.generation`: the counter under {@link GENERATION_META_KEY}. */
  async generation(): Promise<number> {
    return this.use("read meta", ({ sql }) => Number(readMeta(sql, GENERATION_META_KEY) ?? 0));
  }

  /**
   * See `MemoryStore.scanTermCounts`: every chunk in rowid order, {@link SCAN_PAGE_ROWS} at a
   * time, each page one read: its `chunk_terms` blob decoded into term ids and counts (the ids of
   * `term_ids`, named from there), and with `chunks` its row and vector (from the plain vectors
   * table; views of an array the next page reuses). Blobs come as hex text (see `HexBlobs`).
   */
  async *scanTermCounts(options: TermCountsScan = {}): AsyncIterable<TermCountsPage> {
    type Row = [rowid: number, terms: string | null, ...chunk: ChunkLabels, vector: string | null];
    const pages = new TermCountPages();
    const terms = new HexBlobs();
    const vectors = new HexBlobs();
    for (let after = -1; ; ) {
      const read = this.use("read chunks", ({ sql }) =>
        sql.db.transaction(() => {
          const rows = sql
            .get(options.chunks ? SQL.scanPage : SQL.scanTerms)
            .raw()
            .all(after, SCAN_PAGE_ROWS) as Row[];
          terms.read(rows.map((row) => row[1]));
          const { page, unnamed } = pages.read(terms.bytes, terms.ends, rows.length);
          if (options.names) {
            const named = sql.get(SQL.termNames).raw().all(JSON.stringify(unnamed));
            page.names = new Map(named as Array<[number, string]>);
          }
          if (options.chunks) {
            const { bytes, ends } = vectors.read(rows.map((row) => row[8]));
            const floats = new Float32Array(bytes.buffer, 0, bytes.length >> 2);
            page.chunks = rows.map(([, , id, path, tier, source, startLine, endLine], i) => {
              const start = i ? (ends[i - 1] as number) : 0;
              const end = ends[i] as number;
              const embedding = end > start ? floats.subarray(start >> 2, end >> 2) : null;
              return { id, path, tier, source, startLine, endLine, embedding };
            });
          }
          return { page, last: rows[rows.length - 1]?.[0] };
        })(),
      );
      if (read.last === undefined) return;
      after = read.last;
      yield read.page;
      if (read.page.size < SCAN_PAGE_ROWS) return;
    }
  }

  /** See `MemoryStore.getChunksById`. */
  async getChunksById(ids: readonly string[]): Promise<StoredChunk[]> {
    return this.use("read chunks", ({ sql }) =>
      (sql.get(SQL.chunksById).all(JSON.stringify(ids)) as ChunkRow[]).map(toStoredChunk),
    );
  }

  /** See `MemoryStore.getVectors`. */
  async getVectors(ids: readonly string[]): Promise<Map<string, Float32Array>> {
    return this.use("read vectors", ({ sql, vectors }) => {
      const out = new Map<string, Float32Array>();
      if (!vectors || !ids.length) return out;
      const rows = sql.get(SQL.vectorsById).raw().all(JSON.stringify(ids)) as Array<
        [string, Buffer]
      >;
      for (const [id, blob] of rows) out.set(id, blobToVector(blob));
      return out;
    });
  }

  /** Run `fn` on the open connection (see `IndexFile.use`). */
  private use<T>(action: string, fn: (open: Open) => T): T {
    return this.file.use(action, fn);
  }

  /**
   * Make sure the vec0 table matches the recorded dims: recreate it if it went missing, and refuse
   * an index that holds vectors when sqlite-vec is not loaded (its rows could not be maintained).
   */
  private checkVectorSpace({ sql, vectors }: Open): void {
    const dims = readDims(sql);
    const hasTable = tableExists(sql.db, VEC_TABLE);
    if (vectors) {
      if (dims !== null && !hasTable) vectors.create(dims);
      return;
    }
    if (dims !== null || hasTable) {
      throw new EngramError(
        "STORE_FAILED",
        `The index ${this.path} holds vectors, but the store was opened with \`vectors: false\`.`,
        {
          hint: "Open it with vectors enabled, or delete the index file to rebuild it keyword-only.",
        },
      );
    }
  }

  /** Delete the chunks of `paths` with their terms and vectors (not the file records). */
  private removeChunks(
    { sql, text, vectors }: Open,
    paths: readonly string[],
    dims: number | null,
  ): void {
    const rowids: number[] = [];
    for (const path of paths) {
      for (const rowid of sql.get(SQL.chunkRowids).pluck().all(path) as number[])
        rowids.push(rowid);
    }
    if (rowids.length === 0) return;
    text.delete(rowids);
    if (vectors && dims !== null) for (const rowid of rowids) vectors.delete(rowid);
    for (const path of paths) sql.get(SQL.deleteChunks).run(path);
  }
}

/**
 * Run `fn` in one immediate transaction that also increments the generation; the full-text index
 * learns when it rolled back (its term ids were never assigned).
 */
function inTransaction({ sql, text }: Open, fn: () => void): void {
  try {
    sql.db
      .transaction(() => {
        fn();
        sql.get(SQL.bumpGeneration).run();
      })
      .immediate();
  } catch (error) {
    text.rolledBack();
    throw error;
  }
}

/** Recreate the vectors' tables for `dims` (null: none) and record it (in a transaction). */
function setDims({ sql, vectors }: Open, dims: number | null): void {
  vectors?.recreate(dims);
  if (dims === null) sql.get(SQL.deleteMeta).run(DIMS_META_KEY);
  else sql.get(SQL.setMeta).run(DIMS_META_KEY, String(dims));
}

/** Insert a chunk row (its terms and vector are the indexes' business); returns its rowid. */
function insertChunk(sql: StatementCache, chunk: ChunkRecord): number | bigint {
  return sql
    .get(SQL.insertChunk)
    .run(
      chunk.id,
      chunk.path,
      chunk.source,
      chunk.tier,
      chunk.startLine,
      chunk.endLine,
      JSON.stringify(chunk.headings),
      chunk.text,
      chunk.hash,
    ).lastInsertRowid;
}

function readMeta(sql: StatementCache, key: string): string | undefined {
  const row = sql.get(SQL.getMeta).get(key) as { value: string } | undefined;
  return row?.value;
}

function readDims(sql: StatementCache): number | null {
  const value = readMeta(sql, DIMS_META_KEY);
  return value === undefined ? null : Number(value);
}

function fileSize(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}
