import { join } from "node:path";
import {
  EmbeddingCache,
  isEngramError,
  parseRecoveries,
  RECOVERY_META_KEY,
  takeRecoveries,
} from "@engram/core/driver";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../src/index.js";
import { schemaVersion } from "../src/schema.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/**
 * An index as an older version of this package left it, in that layout's own tables (written
 * here, as the released migrations created them): two chunks with vectors in a cosine vec0 table,
 * meta, and embeddings cached in the layout's cache table (`embedding_cache` up to layout 6, the
 * key → bytes map from layout 7).
 */
function writeOldLayout(path: string, layout: 1 | 6 | 7, cached: Record<string, number[]>): void {
  const db = new Database(path);
  try {
    sqliteVec.load(db);
    db.pragma("journal_mode = WAL");
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE files (path TEXT PRIMARY KEY, source TEXT NOT NULL, tier TEXT NOT NULL,
        hash TEXT NOT NULL, mtime_ms INTEGER NOT NULL, size INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE chunks (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, path TEXT NOT NULL,
        source TEXT NOT NULL, tier TEXT NOT NULL, start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL, headings TEXT NOT NULL, text TEXT NOT NULL, hash TEXT NOT NULL);
      CREATE INDEX chunks_by_path ON chunks (path, start_line);
      INSERT INTO meta VALUES ('engram.identity', 'old-identity'), ('store-sqlite.dims', '2');
      INSERT INTO files VALUES ('MEMORY.md', 'memory', 'long', 'abc', 1234, 56);
      INSERT INTO chunks VALUES (1, 'c1', 'MEMORY.md', 'memory', 'long', 1, 3, '["记忆"]', '用户偏好', 'h1'),
        (2, 'c2', 'MEMORY.md', 'memory', 'long', 4, 5, '[]', 'dark mode', 'h2');
    `);
    if (layout === 1) {
      db.exec(`CREATE VIRTUAL TABLE chunks_fts USING fts5(terms, content='', contentless_delete=1, tokenize='ascii');
        INSERT INTO chunks_fts (rowid, terms) VALUES (1, '用户 偏好'), (2, 'dark mode');`);
    } else {
      db.exec(`
        CREATE VIRTUAL TABLE chunks_fts USING fts5(terms, chars, content='', tokenize='ascii');
        INSERT INTO chunks_fts (rowid, terms, chars) VALUES (1, '用户 偏好', ''), (2, 'dark mode', '');
        CREATE TABLE chunk_vectors (rowid INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
        CREATE TABLE term_ids (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
        CREATE TABLE chunk_terms (rowid INTEGER PRIMARY KEY, terms BLOB NOT NULL);
        CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[2] distance_metric=cosine, tier text, source text);
      `);
      const blob = (vector: number[]) => Buffer.from(Float32Array.from(vector).buffer);
      for (const [rowid, vector] of [
        [1, [1, 0]],
        [2, [0.6, 0.8]],
      ] as const) {
        db.prepare("INSERT INTO chunk_vectors VALUES (?, ?)").run(rowid, blob([...vector]));
        db.prepare(
          "INSERT INTO chunks_vec (rowid, embedding, tier, source) VALUES (?, ?, 'long', 'memory')",
        ).run(BigInt(rowid), blob([...vector]));
      }
      if (layout === 6) {
        db.exec(`CREATE TABLE embedding_cache (key TEXT PRIMARY KEY, embedding BLOB NOT NULL,
          dims INTEGER NOT NULL, last_used INTEGER NOT NULL) WITHOUT ROWID`);
        for (const [key, vector] of Object.entries(cached)) {
          db.prepare("INSERT INTO embedding_cache VALUES (?, ?, ?, 1)").run(
            key,
            blob(vector),
            vector.length,
          );
        }
      } else {
        db.exec("CREATE TABLE key_value (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID");
        for (const [key, vector] of Object.entries(cached)) {
          db.prepare("INSERT INTO key_value VALUES (?, ?)").run(`embedding/0/${key}`, blob(vector));
        }
      }
    }
    db.pragma(`user_version = ${layout}`);
  } finally {
    db.close();
  }
}

/** The tables of the file at `path`, by name (shadow tables included). */
function tablesOf(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

describe("index layouts (PRAGMA user_version)", () => {
  it("a new database gets the current layout, in 16 KiB pages", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    await temp.open({ path });
    const db = new Database(path, { readonly: true });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.pragma("page_size", { simple: true })).toBe(16_384);
    db.close();
    expect(tablesOf(path)).toEqual(
      expect.arrayContaining(["meta", "files", "chunks", "chunks_fts", "key_value", "term_ids"]),
    );
  });

  for (const layout of [6, 7] as const) {
    it(`a layout-${layout} index is emptied for a rebuild and keeps its cached embeddings`, async () => {
      const path = join(await temp.dir(), "index.sqlite");
      const cached = { "openai:small:2:中文": [0.5, -1], "openai:small:2:dark": [2, 0.25] };
      writeOldLayout(path, layout, cached);

      const store = await temp.open({ path });
      expect(await store.listFiles()).toEqual([]);
      expect(await store.stats()).toMatchObject({ files: 0, chunks: 0, vectors: 0 });
      expect(await store.dims()).toBeNull();
      expect(await store.getMeta("engram.identity")).toBeUndefined(); // the next sync rebuilds
      const cache = new EmbeddingCache(store.keyValue as NonNullable<typeof store.keyValue>);
      const found = await cache.get([...Object.keys(cached), "missing"]);
      expect(Object.fromEntries([...found].map(([key, v]) => [key, Array.from(v)]))).toEqual(
        cached,
      );
      const recoveries = parseRecoveries(await store.getMeta(RECOVERY_META_KEY));
      expect(recoveries).toMatchObject([{ outdated: true }]);
      expect(recoveries[0]?.reason).toContain(`layout ${layout}`);
      expect(await takeRecoveries(store)).toEqual([
        expect.stringMatching(/older version of engram.*rebuilt.*embeddings it had cached/),
      ]);

      // It is an index like a new one: written, searched by keyword and vector.
      await store.reset({ dims: 2 });
      await store.write({
        upserts: [
          upsert("MEMORY.md", [
            [1, ["用户", "偏好"], [0.5, -1]],
            [4, ["dark", "mode"], [2, 0.25]],
          ]),
        ],
      });
      expect((await store.searchText(["偏好"], 5)).map((hit) => hit.chunk.startLine)).toEqual([1]);
      const nearest = await store.searchVector(Float32Array.from([1, 0.1]), 1);
      expect(nearest.map((hit) => hit.chunk.startLine)).toEqual([4]);
      await store.close();

      expect(tablesOf(path)).not.toContain("embedding_cache");
      const db = new Database(path, { readonly: true });
      expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
      // SQLite fixes a file's page size when it is made: an older index keeps its 4 KiB pages.
      expect(db.pragma("page_size", { simple: true })).toBe(4096);
      db.close();
    });
  }

  it("a layout-1 index (no cache) opens empty, and the note is left once", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    writeOldLayout(path, 1, {});
    const store = await temp.open({ path });
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect(await store.keyValue?.count("")).toBe(0);
    await store.write({ upserts: [upsert("a.md", [[1, ["偏好"]]])] });
    expect(await store.searchText(["偏好"], 5)).toHaveLength(1);
    await store.close();
    const again = await temp.open({ path });
    expect(await again.stats()).toMatchObject({ files: 1, chunks: 1 });
    expect(parseRecoveries(await again.getMeta(RECOVERY_META_KEY))).toHaveLength(1);
  });

  it("an older index holding vectors is refused untouched without sqlite-vec", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    writeOldLayout(path, 7, { k: [1, 2] });
    const failure = await temp
      .create({ path, vectors: false })
      .init()
      .catch((error) => error);
    expect(isEngramError(failure, "STORE_FAILED")).toBe(true);
    expect(failure.message).toMatch(/needs sqlite-vec to rebuild/);
    const db = new Database(path, { readonly: true });
    expect(schemaVersion(db)).toBe(7);
    expect(db.prepare("SELECT count(*) FROM chunks").pluck().get()).toBe(2);
    db.close();
  });

  it("opening an up-to-date database again keeps everything", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const first = await temp.open({ path });
    await first.setMeta("k", "v");
    await first.write({ upserts: [upsert("a.md", [[1, ["term"]]])] });
    await first.close();
    const second = await temp.open({ path });
    expect(await second.getMeta("k")).toBe("v");
    expect(await second.getMeta(RECOVERY_META_KEY)).toBeUndefined();
    expect(await second.stats()).toMatchObject({ files: 1, chunks: 1 });
  });

  it("refuses a database from a newer version and leaves it untouched", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const db = new Database(path);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();

    const failure = await temp
      .create({ path })
      .init()
      .catch((error) => error);
    expect(isEngramError(failure, "STORE_FAILED")).toBe(true);
    expect(failure.message).toMatch(/layout version \d+, which this @engram\/store-sqlite/);
    expect(failure.hint).toMatch(/engram sync/);

    const check = new Database(path, { readonly: true });
    expect(schemaVersion(check)).toBe(SCHEMA_VERSION + 1);
    check.close();
  });
});
