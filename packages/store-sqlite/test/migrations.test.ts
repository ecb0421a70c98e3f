import { join } from "node:path";
import { EmbeddingCache, isEngramError } from "@engram/core/driver";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { describe, expect, it } from "vitest";
import { StatementCache } from "../src/connection.js";
import { SCHEMA_VERSION } from "../src/index.js";
import { MIGRATIONS, migrate, schemaVersion } from "../src/schema.js";
import { encodeTermCounts, TermCountReader } from "../src/terms.js";
import { answersFor, upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/** A database as schema version 1 wrote it: files, chunks and terms, no embedding cache. */
function writeVersion1(path: string): void {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    migrate(db, path, 1);
    db.prepare("INSERT INTO meta (key, value) VALUES ('engram.identity', 'v1-identity')").run();
    db.prepare(
      "INSERT INTO files (path, source, tier, hash, mtime_ms, size) VALUES ('MEMORY.md', 'memory', 'long', 'abc', 1234, 56)",
    ).run();
    const { lastInsertRowid } = db
      .prepare(
        `INSERT INTO chunks (id, path, source, tier, start_line, end_line, headings, text, hash)
         VALUES ('c1', 'MEMORY.md', 'memory', 'long', 1, 3, '["记忆"]', '用户偏好', 'def')`,
      )
      .run();
    db.prepare("INSERT INTO chunks_fts (rowid, terms) VALUES (?, '用户 偏好')").run(
      lastInsertRowid,
    );
  } finally {
    db.close();
  }
}

/**
 * A version-2 database holding vectors, as that version wrote them: in vec0 only. Two chunks with
 * vectors, one without.
 */
function writeVersion2WithVectors(path: string): void {
  const db = new Database(path);
  try {
    sqliteVec.load(db);
    db.pragma("journal_mode = WAL");
    migrate(db, path, 2);
    db.prepare("INSERT INTO meta (key, value) VALUES ('store-sqlite.dims', '2')").run();
    db.exec(
      "CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[2] distance_metric=cosine, tier text, source text)",
    );
    const vectors = [[1, 0], [0.6, 0.8], undefined];
    vectors.forEach((vector, i) => {
      const { lastInsertRowid: rowid } = db
        .prepare(
          `INSERT INTO chunks (id, path, source, tier, start_line, end_line, headings, text, hash)
           VALUES (?, 'a.md', 'memory', 'long', ?, ?, '[]', 'text', 'h')`,
        )
        .run(`c${i}`, i + 1, i + 1);
      if (!vector) return;
      db.prepare(
        "INSERT INTO chunks_vec (rowid, embedding, tier, source) VALUES (?, ?, 'long', 'memory')",
      ).run(BigInt(rowid), Buffer.from(Float32Array.from(vector).buffer));
    });
  } finally {
    db.close();
  }
}

/** Chunks `notes/NN.md:1` with these terms (one with none, one with a term 200 times). */
const V4_CHUNKS: string[][] = [
  ["deploy", "github", "action", "deploy"],
  ["用", "用户", "户", "偏好", "深色", "模式", "用户", "用"],
  [],
  ["deploy", "记忆", ...new Array(200).fill("repeat")],
  ["mode", "dark", "prefer", "café"],
  ["会", "会议", "议", "周二", "deploy", "mode"],
];

/**
 * A version-4 index as that version left it: a `contentless_delete` FTS5 table whose totals still
 * count three rows inserted and deleted again; term counts for the even chunks only (the odd ones
 * are from before version 4).
 */
function writeVersion4(path: string): void {
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    migrate(db, path, 4);
    const termId = (term: string) => {
      db.prepare("INSERT OR IGNORE INTO term_ids (term) VALUES (?)").run(term);
      return db.prepare("SELECT id FROM term_ids WHERE term = ?").pluck().get(term) as number;
    };
    V4_CHUNKS.forEach((terms, i) => {
      const file = `notes/${String(i).padStart(2, "0")}.md`;
      const { lastInsertRowid: rowid } = db
        .prepare(
          `INSERT INTO chunks (id, path, source, tier, start_line, end_line, headings, text, hash)
           VALUES (?, ?, 'memory', 'long', 1, 1, '[]', ?, 'h')`,
        )
        .run(`${file}:1`, file, terms.join(" "));
      if (terms.length) {
        db.prepare("INSERT INTO chunks_fts (rowid, terms) VALUES (?, ?)").run(
          rowid,
          terms.join(" "),
        );
      }
      if (i % 2 === 1) return;
      const counts: number[] = [];
      for (const term of terms) {
        const id = termId(term);
        counts[id] = (counts[id] ?? 0) + 1;
      }
      const ids = [...new Set(terms.map(termId))].sort((a, b) => a - b);
      db.prepare("INSERT INTO chunk_terms (rowid, terms) VALUES (?, ?)").run(
        rowid,
        encodeTermCounts(ids, counts),
      );
    });
    for (const rowid of [1001, 1002, 1003]) {
      db.prepare("INSERT INTO chunks_fts (rowid, terms) VALUES (?, 'deploy gone gone')").run(rowid);
      db.prepare("DELETE FROM chunks_fts WHERE rowid = ?").run(rowid);
    }
  } finally {
    db.close();
  }
}

/** FTS5's BM25 totals, and every chunk's terms (sorted) from its `chunk_terms` row. */
function fullTextState(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const termOf = new Map(
      db.prepare("SELECT id, term FROM term_ids").raw().all() as Array<[number, string]>,
    );
    const reader = new TermCountReader();
    const terms = (
      db
        .prepare(
          "SELECT c.id, t.terms FROM chunks c LEFT JOIN chunk_terms t USING (rowid) ORDER BY c.id",
        )
        .raw()
        .all() as Array<[string, Buffer | null]>
    ).map(([id, blob]) => {
      if (!blob) return [id, null];
      const out: string[] = [];
      for (reader.read(blob); reader.next(); ) {
        for (let n = 0; n < reader.count; n++) out.push(termOf.get(reader.id) as string);
      }
      return [id, out.sort()];
    });
    return { totals: readBm25Totals(new StatementCache(db)), terms };
  } finally {
    db.close();
  }
}

describe("schema migrations (PRAGMA user_version)", () => {
  it("a new database gets the latest schema", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    await temp.open({ path });
    const db = new Database(path, { readonly: true });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
    db.close();
  });

  it("upgrades a version-1 database step by step and keeps its data", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    writeVersion1(path);
    const before = new Database(path, { readonly: true });
    expect(schemaVersion(before)).toBe(1);
    expect(
      before.prepare("SELECT name FROM sqlite_master WHERE name = 'embedding_cache'").get(),
    ).toBeUndefined();
    before.close();

    const store = await temp.open({ path });
    expect(await store.getMeta("engram.identity")).toBe("v1-identity");
    expect(await store.getFile("MEMORY.md")).toEqual({
      path: "MEMORY.md",
      source: "memory",
      tier: "long",
      hash: "abc",
      mtimeMs: 1234,
      size: 56,
    });
    const hits = await store.searchText(["偏好"], 5);
    expect(hits.map((hit) => hit.chunk)).toEqual([
      {
        id: "c1",
        path: "MEMORY.md",
        source: "memory",
        tier: "long",
        startLine: 1,
        endLine: 3,
        headings: ["记忆"],
        text: "用户偏好",
        hash: "def",
      },
    ]);
    // Later searches too, from memory: version 5 gave the chunk its term counts from FTS5.
    expect(await store.searchText(["偏好"], 5)).toEqual(hits);
    // What version 7 added works (the key-value table that replaced version 2's cache).
    await store.keyValue?.set([["k", Uint8Array.from([1, 2])]]);
    expect(await store.keyValue?.count("")).toBe(1);
    // What version 4 added: new chunks get their term counts, and then all are searched alike.
    await store.write({ upserts: [upsert("new.md", [[1, ["偏好", "新"]]])] });
    // (Equal scores: path order.)
    expect((await store.searchText(["偏好"], 5)).map((hit) => hit.chunk.id)).toEqual([
      "c1",
      "new.md:1",
    ]);
    await store.close();

    const after = new Database(path, { readonly: true });
    expect(schemaVersion(after)).toBe(SCHEMA_VERSION);
    after.close();
  });

  it("upgrading a version-2 index with vectors copies them into the plain vectors table", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    writeVersion2WithVectors(path);
    const keywordOnly = await temp
      .create({ path, vectors: false })
      .init()
      .catch((error) => error);
    expect(isEngramError(keywordOnly, "STORE_FAILED")).toBe(true);
    expect(keywordOnly.message).toMatch(/needs sqlite-vec to upgrade/);

    const store = await temp.open({ path });
    const query = Float32Array.from([0, 1]);
    const hits = await store.searchVector(query, 5);
    expect(hits.map((hit) => hit.chunk.startLine)).toEqual([2, 1]);
    await store.close();

    const after = new Database(path, { readonly: true });
    expect(schemaVersion(after)).toBe(SCHEMA_VERSION);
    expect(after.prepare("SELECT rowid FROM chunk_vectors ORDER BY rowid").pluck().all()).toEqual([
      1, 2,
    ]);
    after.close();
  });

  it("upgrading a version-4 index gives every chunk its terms and BM25 exact totals", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    writeVersion4(path);
    const tokens = V4_CHUNKS.reduce((sum, terms) => sum + terms.length, 0);
    const before = fullTextState(path);
    expect(before.totals).toEqual({ rows: 5 + 3, tokens: tokens + 9 }); // deleted rows counted
    expect(before.terms.filter(([, terms]) => terms === null)).toHaveLength(3);

    const store = await temp.open({ path });
    const after = fullTextState(path);
    expect(after.totals).toEqual({ rows: 5, tokens });
    expect(after.terms).toEqual(
      V4_CHUNKS.map((terms, i) => [`notes/${String(i).padStart(2, "0")}.md:1`, [...terms].sort()]),
    );
    // It ranks as an index written fresh.
    const fresh = await temp.open({ path: join(await temp.dir(), "fresh.sqlite") });
    await fresh.write({
      upserts: V4_CHUNKS.map((terms, i) =>
        upsert(`notes/${String(i).padStart(2, "0")}.md`, [[1, terms]]),
      ),
    });
    const queries = [
      ["deploy"],
      ["用户", "mode"],
      ["repeat", "deploy", "absent"],
      ["café", "周二"],
      ["用", "会", "deploy"], // single characters: their own FTS5 column since schema 6
    ];
    const answers = (s: typeof store) =>
      answersFor(queries, (terms, k, filter) => s.searchText(terms, k, filter));
    const expected = await answers(fresh);
    expect(expected.scores.length).toBeGreaterThan(20);
    expect(await answers(store)).toEqual(expected);
    // Deletes keep the totals exact from now on.
    await store.write({ deletes: ["notes/00.md", "notes/01.md"] });
    const removed = (V4_CHUNKS[0]?.length ?? 0) + (V4_CHUNKS[1]?.length ?? 0);
    expect(fullTextState(path).totals).toEqual({ rows: 3, tokens: tokens - removed });
  });

  it("upgrading a version-6 index moves its cached embeddings where core's cache finds them", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    sqliteVec.load(db);
    migrate(db, path, 6);
    const vector = Float32Array.from([0.5, -1, 2]);
    db.prepare(
      "INSERT INTO embedding_cache (key, embedding, dims, last_used) VALUES (?, ?, 3, 1)",
    ).run("openai:small:3:中文", Buffer.from(vector.buffer));
    db.close();

    const store = await temp.open({ path });
    const cache = new EmbeddingCache(store.keyValue as NonNullable<typeof store.keyValue>);
    const found = await cache.get(["openai:small:3:中文", "missing"]);
    expect([...found.keys()]).toEqual(["openai:small:3:中文"]);
    expect(Array.from(found.get("openai:small:3:中文") ?? [])).toEqual([0.5, -1, 2]);
    await store.close();
    const after = new Database(path, { readonly: true });
    expect(
      after.prepare("SELECT name FROM sqlite_master WHERE name = 'embedding_cache'").get(),
    ).toBeUndefined();
    after.close();
  });

  it("upgrading a version-7 index rebuilds vec0 with unit vectors: the same hits and scores", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const vectors = [
      [3, 4],
      [0, 2],
      [0, 0],
      [-1, 0.5],
      [0.6, 0.8],
    ];
    const db = new Database(path);
    try {
      sqliteVec.load(db);
      db.pragma("journal_mode = WAL");
      migrate(db, path, 7);
      db.prepare("INSERT INTO meta (key, value) VALUES ('store-sqlite.dims', '2')").run();
      db.exec(
        "CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[2] distance_metric=cosine, tier text, source text)",
      );
      vectors.forEach((vector, i) => {
        const { lastInsertRowid: rowid } = db
          .prepare(
            `INSERT INTO chunks (id, path, source, tier, start_line, end_line, headings, text, hash)
             VALUES (?, 'a.md', 'memory', 'long', ?, ?, '[]', 'text', 'h')`,
          )
          .run(`c${i}`, i + 1, i + 1);
        const blob = Buffer.from(Float32Array.from(vector).buffer);
        db.prepare(
          "INSERT INTO chunks_vec (rowid, embedding, tier, source) VALUES (?, ?, 'long', 'memory')",
        ).run(BigInt(rowid), blob);
        db.prepare("INSERT INTO chunk_vectors (rowid, embedding) VALUES (?, ?)").run(rowid, blob);
      });
    } finally {
      db.close();
    }
    const store = await temp.open({ path });
    const fresh = await temp.open({ path: ":memory:" });
    await fresh.reset({ dims: 2 });
    await fresh.write({
      upserts: [
        upsert(
          "a.md",
          vectors.map((vector, i) => [i + 1, ["t"], vector] as [number, string[], number[]]),
        ),
      ],
    });
    for (const query of [
      [1, 1],
      [0, -1],
      [-2, 1],
    ]) {
      const vector = Float32Array.from(query);
      const hits = await store.searchVector(vector, 5);
      expect(hits.map((hit) => hit.chunk.startLine)).toEqual(
        (await fresh.searchVector(vector, 5)).map((hit) => hit.chunk.startLine),
      );
      expect(hits).toHaveLength(4); // the zero vector has no cosine
    }
    expect((await store.searchVector(Float32Array.from([0.6, 0.8]), 1))[0]?.score).toBeCloseTo(
      1,
      6,
    );
    expect((await store.stats()).vectors).toBe(5);
  });

  it("opening an up-to-date database again runs no migration", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const first = await temp.open({ path });
    await first.setMeta("k", "v");
    await first.close();
    const second = await temp.open({ path });
    expect(await second.getMeta("k")).toBe("v");
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

/**
 * FTS5's totals from its averages record (`<table>_data` id 1: the row count, then the token
 * count of each column, as SQLite varints). FTS5's private layout: read here only to check that
 * upgrades leave the totals `bm25()` reads exact; the store itself never reads it.
 */
function readBm25Totals(statements: StatementCache): { rows: number; tokens: number } | undefined {
  const block = statements.get("SELECT block FROM chunks_fts_data WHERE id = 1").pluck().get() as
    | Buffer
    | undefined;
  if (!block?.length) return { rows: 0, tokens: 0 };
  const values: number[] = [];
  let value = 0;
  for (const byte of block) {
    value = value * 0x80 + (byte & 0x7f);
    if (byte < 0x80) {
      values.push(value);
      value = 0;
    }
  }
  const [rows, ...columns] = values;
  if (rows === undefined) return undefined;
  return { rows, tokens: columns.reduce((sum, count) => sum + count, 0) };
}
