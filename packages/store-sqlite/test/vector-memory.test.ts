import { join } from "node:path";
import type { MemoryStore, StoreBatch } from "@engram/core/driver";
import { seededRandom } from "@engram/core/testing";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { describe, expect, it } from "vitest";
import { loadMatrix } from "../src/matrix-load.js";
import { PLAIN_VECTORS_TABLE, VEC_TABLE } from "../src/schema.js";
import { simdScan } from "../src/simd-scan.js";
import { StatementCache } from "../src/statements.js";
import { type Answers, answersFor, upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const DIMS = 12;

/**
 * 40 files × 6 chunks over three tiers and two sources, with exact duplicates (ties at every
 * distance), a zero vector and a few chunks without vectors.
 */
function corpus(seed: number): NonNullable<StoreBatch["upserts"]> {
  const next = seededRandom(seed);
  const tiers = ["long", "mid", "short"] as const;
  const vector = () => Array.from({ length: DIMS }, () => Math.round((next() * 2 - 1) * 4) / 4);
  const shared = vector();
  return Array.from({ length: 40 }, (_, f) =>
    upsert(
      `notes/${String(f).padStart(2, "0")}.md`,
      Array.from({ length: 6 }, (_, c) => {
        const embedding =
          f === 3 && c === 0
            ? new Array(DIMS).fill(0)
            : c === 5 && f % 7 === 0
              ? undefined
              : c === 4
                ? shared
                : vector();
        return [c * 10 + 1, ["t"], embedding] as [number, string[], number[] | undefined];
      }),
      { tier: tiers[f % 3], source: f % 5 === 0 ? "sessions" : "memory" },
    ),
  );
}

/** Every (query, k, filter) answer: the chunks found (`path:line`) and their scores. */
function answers(store: MemoryStore, seed: number): Promise<Answers> {
  const next = seededRandom(seed);
  const queries = Array.from({ length: 12 }, () =>
    Float32Array.from({ length: DIMS }, () => next() * 2 - 1),
  );
  return answersFor(queries, (query, k, filter) => store.searchVector(query, k, filter));
}

/** Same chunks in the same order with the same scores (rescoring computes as sqlite-vec does). */
function expectSame(actual: Answers, expected: Answers): void {
  expect(actual).toEqual(expected);
}

async function openPair() {
  const dir = await temp.dir();
  const path = join(dir, "index.sqlite");
  const memory = await temp.open({ path, vectorMemoryAfterSearches: 0 });
  await memory.reset({ dims: DIMS });
  const disk = await temp.open({ path, vectorMemoryMb: 0 });
  return { memory, disk, path };
}

describe("vectors searched from memory", () => {
  it("answers exactly as sqlite-vec does: same chunks, order, ties and scores", async () => {
    const { memory, disk, path } = await openPair();
    await memory.write({ upserts: corpus(1) });
    const expected = await answers(disk, 7);
    expectSame(await answers(memory, 7), expected);
    expect(expected.chunks.some((line) => line.split(" ").length === 40)).toBe(true);
    // Defaults: the first search asks sqlite-vec, the later ones the copy; all answer alike.
    const defaults = await temp.open({ path });
    expectSame(await answers(defaults, 7), expected);
  });

  it("follows its own writes: added, replaced and deleted vectors", async () => {
    const { memory, disk } = await openPair();
    await memory.write({ upserts: corpus(2) });
    await answers(memory, 3); // loads the vectors into memory
    const near = Array.from({ length: DIMS }, (_, i) => (i === 0 ? 1 : 0));
    await memory.write({
      upserts: [upsert("new.md", [[1, ["t"], near]]), ...corpus(4).slice(0, 10)],
      deletes: ["notes/20.md", "notes/21.md"],
    });
    const top = await memory.searchVector(Float32Array.from(near), 1);
    expect(top[0]?.chunk.path).toBe("new.md");
    expectSame(await answers(memory, 5), await answers(disk, 5));
  });

  it("follows another connection's writes to the same file", async () => {
    const { memory, disk } = await openPair();
    await disk.write({ upserts: corpus(3) });
    const before = await answers(memory, 9);
    await disk.write({ upserts: corpus(6).slice(0, 15), deletes: ["notes/30.md"] });
    const after = await answers(memory, 9);
    expect(after.chunks).not.toEqual(before.chunks);
    expectSame(after, await answers(disk, 9));
    await disk.reset({ dims: DIMS });
    expect(await memory.searchVector(Float32Array.from(new Array(DIMS).fill(1)), 5)).toEqual([]);
  });

  it("keeps its copy unchanged when a write rolls back", async () => {
    const { memory, disk } = await openPair();
    await memory.write({ upserts: corpus(5) });
    const before = await answers(memory, 11);
    const wrongDims = upsert("bad.md", [[1, ["t"], [1, 2, 3]]]);
    await expect(
      memory.write({
        upserts: [upsert("ok.md", [[1, ["t"], new Array(DIMS).fill(1)]]), wrongDims],
      }),
    ).rejects.toThrow();
    expect(await answers(memory, 11)).toEqual(before);
    await memory.write({ deletes: ["notes/00.md"] });
    expectSame(await answers(memory, 11), await answers(disk, 11));
  });

  it("scans with sqlite-vec when the vectors exceed the memory budget", async () => {
    const { disk, path } = await openPair();
    await disk.write({ upserts: corpus(8) });
    const tiny = await temp.open({ path, vectorMemoryMb: 0.001, vectorMemoryAfterSearches: 0 });
    expect(await answers(tiny, 13)).toEqual(await answers(disk, 13));
  });

  it("refuses a memory budget or warm-up that is not a sensible number", () => {
    expect(() => temp.create({ path: ":memory:", vectorMemoryMb: -1 })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", hint: expect.stringContaining("256") }),
    );
    expect(() => temp.create({ path: ":memory:", vectorMemoryAfterSearches: 1.5 })).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining("1.5"),
      }),
    );
    expect(() => temp.create({ path: ":memory:", vectorMemoryBackgroundAbove: -2 })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", hint: expect.stringContaining("2000") }),
    );
  });

  it("reads the plain vectors table when vec0's storage tables are not as expected", () => {
    const scan = simdScan();
    if (!scan) throw new Error("USearch's binary did not load on this platform");
    const db = new Database(":memory:");
    // vec0's rowid table but none of its storage tables: only the plain vectors table can be read.
    db.exec(`
      CREATE TABLE chunks (rowid INTEGER PRIMARY KEY, path TEXT, start_line INTEGER, tier TEXT, source TEXT);
      CREATE TABLE ${PLAIN_VECTORS_TABLE} (rowid INTEGER PRIMARY KEY, embedding BLOB);
      CREATE TABLE plain_rowids (rowid INTEGER PRIMARY KEY);
    `);
    const vectors = [
      [1, 0],
      [0, 1],
      [0.6, 0.8],
    ];
    vectors.forEach((vector, i) => {
      db.prepare("INSERT INTO chunks VALUES (?, 'a.md', ?, ?, 'memory')").run(
        i + 1,
        10 * i + 1,
        i === 1 ? "short" : "long",
      );
      db.prepare(`INSERT INTO ${PLAIN_VECTORS_TABLE} VALUES (?, ?)`).run(
        i + 1,
        Buffer.from(Float32Array.from(vector).buffer),
      );
      db.prepare("INSERT INTO plain_rowids VALUES (?)").run(i + 1);
    });
    const matrix = loadMatrix(new StatementCache(db), "plain", 2, scan);
    expect(matrix.size).toBe(3);
    const nearest = matrix.nearest(
      Float32Array.from([0, 1]),
      2,
      (chunk) => chunk.tier === "long",
      (rowid) => Float32Array.from(vectors[rowid - 1] as number[]),
    );
    expect(nearest.map((hit) => hit.rowid)).toEqual([3, 1]);
    expect(nearest[0]?.distance).toBeCloseTo(0.2, 6);
    db.close();
  });
});

describe("loading the vectors in the background", () => {
  /** A chunk of {@link corpus} without a vector. */
  const EMPTY_CHUNK = "notes/00.md:51";
  const PLANTED = Float32Array.from({ length: DIMS }, (_, i) => (i === 1 ? 1 : 0));

  /**
   * Give {@link EMPTY_CHUNK} the vector {@link PLANTED} in vec0 only, behind the store's back: a
   * search for it finds the chunk first only when sqlite-vec answers.
   */
  function plantInVec0Only(dbPath: string): void {
    const db = new Database(dbPath);
    try {
      sqliteVec.load(db);
      const row = db
        .prepare("SELECT rowid, tier, source FROM chunks WHERE id = ?")
        .get(EMPTY_CHUNK) as {
        rowid: number;
        tier: string;
        source: string;
      };
      db.prepare(
        `INSERT INTO ${VEC_TABLE} (rowid, embedding, tier, source) VALUES (?, ?, ?, ?)`,
      ).run(BigInt(row.rowid), Buffer.from(PLANTED.buffer), row.tier, row.source);
    } finally {
      db.close();
    }
  }

  async function answeredBy(store: MemoryStore): Promise<"sqlite-vec" | "memory"> {
    const top = await store.searchVector(PLANTED, 1);
    return top[0]?.chunk.id === EMPTY_CHUNK ? "sqlite-vec" : "memory";
  }

  async function openBackground() {
    const path = join(await temp.dir(), "index.sqlite");
    const memory = await temp.open({
      path,
      vectorMemoryAfterSearches: 0,
      vectorMemoryBackgroundAbove: 0,
    });
    await memory.reset({ dims: DIMS });
    const disk = await temp.open({ path, vectorMemoryMb: 0 });
    return { memory, disk, path };
  }

  it("answers from sqlite-vec while the copy loads, then from memory, alike", async () => {
    const { memory, disk, path } = await openBackground();
    await disk.write({ upserts: corpus(21) });
    const expected = await answers(disk, 7);
    plantInVec0Only(path);
    expect(await answeredBy(memory)).toBe("sqlite-vec"); // the load begins
    expect(await answeredBy(memory)).toBe("sqlite-vec");
    await memory.settled?.();
    expect(await answeredBy(memory)).toBe("memory");
    // The planted row is sqlite-vec's alone: compare with the answers from before it.
    expectSame(await answers(memory, 7), expected);
  });

  it("a write during the load: not kept; a later load is, and is current", async () => {
    const { memory, disk, path } = await openBackground();
    await disk.write({ upserts: corpus(22) });
    plantInVec0Only(path);
    expect(await answeredBy(memory)).toBe("sqlite-vec");
    const near = Array.from({ length: DIMS }, (_, i) => (i === 2 ? 1 : 0));
    await disk.write({ upserts: [upsert("new.md", [[1, ["t"], near]])] });
    await memory.settled?.();
    expect(await answeredBy(memory)).toBe("sqlite-vec");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await answeredBy(memory)).toBe("sqlite-vec");
    await memory.settled?.();
    expect(await answeredBy(memory)).toBe("memory");
    expect((await memory.searchVector(Float32Array.from(near), 1))[0]?.chunk.path).toBe("new.md");
  });

  it("closing the store stops a load under way", async () => {
    const { memory, disk } = await openBackground();
    await disk.write({ upserts: corpus(23) });
    await memory.searchVector(PLANTED, 3);
    await memory.close();
    await memory.settled?.();
    await new Promise((resolve) => setTimeout(resolve, 20)); // a step on the closed connection would throw
    expect(await disk.searchVector(PLANTED, 1)).toHaveLength(1);
  });
});
