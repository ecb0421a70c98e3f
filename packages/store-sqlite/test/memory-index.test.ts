import { join } from "node:path";
import {
  type MemoryIndexedStore,
  type MemoryStore,
  type StoreBatch,
  withMemoryIndex,
} from "@engram/core/driver";
import { seededRandom } from "@engram/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { FTS_TABLE } from "../src/schema.js";
import { type Answers, answersFor, upsert, useTempStores } from "./helpers.js";

// core's withMemoryIndex in front of a real SQLite store: the in-memory index loads from the
// store's scanTermCounts, follows writes by the store's generation and ranks as FTS5 and sqlite-vec do.

const temp = useTempStores();
const DIMS = 8;

/** Terms drawn with a skewed distribution: English words, Chinese characters and bigrams. */
const VOCABULARY = [
  "deploy",
  "github",
  "action",
  "dark",
  "mode",
  "prefer",
  "meet",
  "tuesday",
  "2024",
  "v2",
  "记",
  "忆",
  "记忆",
  "用",
  "户",
  "用户",
  "偏",
  "好",
  "偏好",
  "深色",
  "模式",
  "部署",
  "会议",
  "周二",
  "café",
  "naïve",
];

/**
 * 40 files × 6 chunks over three tiers and two sources. Every chunk but the empty ones holds
 * "the" (a term in more than half the rows, which the search leaves out first); chunk 4 of every
 * file is the same (ties at every score); some chunks have no terms at all; one holds a term 300
 * times (more than a byte counts).
 */
function corpus(seed: number): NonNullable<StoreBatch["upserts"]> {
  const next = seededRandom(seed);
  const tiers = ["long", "mid", "short"] as const;
  const pick = () => VOCABULARY[Math.floor(next() ** 2 * VOCABULARY.length)] as string;
  const terms = (n: number) => ["the", ...Array.from({ length: n }, pick)];
  const shared = terms(8);
  return Array.from({ length: 40 }, (_, f) =>
    upsert(
      `notes/${String(f).padStart(2, "0")}.md`,
      Array.from({ length: 6 }, (_, c) => {
        const chunkTerms =
          c === 4
            ? shared
            : c === 5 && f % 7 === 0
              ? []
              : f === 9 && c === 0
                ? [...terms(3), ...new Array(300).fill("repeat")]
                : terms(1 + Math.floor(next() * 40));
        return [c * 10 + 1, chunkTerms] as [number, string[]];
      }),
      { tier: tiers[f % 3], source: f % 5 === 0 ? "sessions" : "memory" },
    ),
  );
}

/** Every (query, k, filter) answer: the chunks found (`path:line`) and their scores. */
function answers(store: MemoryStore, seed: number): Promise<Answers> {
  const next = seededRandom(seed);
  const queries = [["the"], ["repeat", "the"], ["absent"], ["记忆", "the", "absent", "用户"]];
  for (let q = 0; q < 10; q++) {
    const n = 1 + Math.floor(next() * 4);
    queries.push(Array.from({ length: n }, () => VOCABULARY[Math.floor(next() * 26)] as string));
  }
  return answersFor(queries, (terms, k, filter) => store.searchText(terms, k, filter));
}

/** A chunk of {@link corpus} without terms (so it has no FTS5 row). */
const EMPTY_CHUNK = "notes/00.md:51";

/**
 * Give chunk `chunk` (one without terms) the term `marker` in the FTS5 table only, behind the
 * store's back (no store write, so an in-memory copy is not reloaded): a search for `marker` finds
 * the chunk only when FTS5 answers it. FTS5's totals count one row and token more after this.
 */
function plantInFtsOnly(dbPath: string, chunk: string, marker: string): void {
  const db = new Database(dbPath);
  try {
    const rowid = db.prepare("SELECT rowid FROM chunks WHERE id = ?").pluck().get(chunk);
    db.prepare(`INSERT INTO ${FTS_TABLE} (rowid, terms) VALUES (?, ?)`).run(rowid, marker);
  } finally {
    db.close();
  }
}

/** Whether `store` answered `marker` from FTS5 (it finds the planted chunk) or from memory. */
async function answeredBy(store: MemoryStore, marker: string): Promise<"fts5" | "memory"> {
  return (await store.searchText([marker], 5)).length > 0 ? "fts5" : "memory";
}

/** A unit-free vector for chunk `n` of file `f`, some of them equal (ties), one zero. */
function vectorOf(f: number, c: number): Float32Array | null {
  if (c === 5) return null;
  if (f === 3 && c === 2) return new Float32Array(DIMS);
  const next = seededRandom(c === 4 ? 1000 : f * 10 + c);
  return Float32Array.from({ length: DIMS }, () => next() - 0.3);
}

/** {@link corpus} with vectors. */
function embedded(seed: number): NonNullable<StoreBatch["upserts"]> {
  return corpus(seed).map((entry, f) => ({
    file: entry.file,
    chunks: entry.chunks.map((chunk, c) => ({ ...chunk, embedding: vectorOf(f, c) })),
  }));
}

/** Vector answers for a few query vectors, every k and filter. */
function vectorAnswers(store: MemoryStore): Promise<Answers> {
  const queries = [0, 1, 2, 3].map((q) => {
    const next = seededRandom(500 + q);
    return Float32Array.from({ length: DIMS }, () => next() - 0.3);
  });
  return answersFor(queries, (vector, k, filter) => store.searchVector(vector, k, filter));
}

/**
 * The same chunks in the same order, scores equal but for the last bits of a float (core computes
 * BM25's logarithm with JavaScript's `Math.log`, FTS5 with C's; cosines in double, sqlite-vec in
 * float32), so chunks whose scores differ by less than that may swap.
 */
function expectSame(actual: Answers, expected: Answers): void {
  expect(actual.scores).toHaveLength(expected.scores.length);
  actual.scores.forEach((score, i) => {
    expect(score).toBeCloseTo(expected.scores[i] as number, 5);
  });
  let at = 0;
  const ranked = (answers: Answers, group: string, from: number) =>
    (group ? group.split(" ") : [])
      .map((chunk, i) => `${(answers.scores[from + i] as number).toPrecision(6)} ${chunk}`)
      .sort();
  expected.chunks.forEach((group, g) => {
    const got = actual.chunks[g] as string;
    if (got !== group) expect(ranked(actual, got, at)).toEqual(ranked(expected, group, at));
    at += group ? group.split(" ").length : 0;
  });
}

/** The store alone and, over another connection to the same file, the store with the index in front. */
async function openPair(backgroundAbove = 1_000_000) {
  const path = join(await temp.dir(), "index.sqlite");
  const store = await temp.open({ path });
  await store.reset({ dims: DIMS });
  const indexed = withMemoryIndex(await temp.open({ path }), { backgroundAbove });
  return { store, indexed, path };
}

describe("withMemoryIndex over SQLite", () => {
  it("ranks as FTS5 and sqlite-vec do: same chunks, order and ties, scores to 5 digits", async () => {
    const { store, indexed } = await openPair();
    await store.write({ upserts: embedded(20) });
    expectSame(await answers(indexed, 1), await answers(store, 1));
    expect(indexed.indexLoaded).toBe(true);
    expectSame(await vectorAnswers(indexed), await vectorAnswers(store));
  });

  it("follows its own writes: added, replaced and deleted chunks", async () => {
    const { store, indexed, path } = await openPair();
    await indexed.write({ upserts: embedded(21) });
    await answers(indexed, 1); // loads the copy
    plantInFtsOnly(path, EMPTY_CHUNK, "marker"); // a change no write announced: the copy stays
    await indexed.write({ upserts: embedded(22).slice(0, 5), deletes: ["notes/39.md"] });
    await indexed.write({ upserts: [upsert("new.md", [[1, ["新词", "the"]]])] });
    expect(await answeredBy(indexed, "marker")).toBe("memory");
    expect((await indexed.searchText(["新词"], 1))[0]?.chunk.path).toBe("new.md");
    expect(await store.getFile("notes/39.md")).toBeUndefined();
    const fresh = await temp.open({ path: join(await temp.dir(), "fresh.sqlite") });
    await fresh.reset({ dims: DIMS });
    await fresh.write({
      upserts: [
        ...embedded(21).slice(5, 39),
        ...embedded(22).slice(0, 5),
        upsert("new.md", [[1, ["新词", "the"]]]),
      ],
    });
    expectSame(await answers(indexed, 2), await answers(fresh, 2));
    expectSame(await vectorAnswers(indexed), await vectorAnswers(fresh));
  });

  it("sees another connection's writes: the store answers until the copy is loaded again", async () => {
    const { store, indexed, path } = await openPair();
    await store.write({ upserts: embedded(23) });
    await answers(indexed, 1);
    expect(indexed.indexLoaded).toBe(true);
    await store.write({ upserts: [upsert("other.md", [[1, ["其他", "the"]]])] });
    // Inline load (small index): the first search after the write reloads, and sees it.
    expect((await indexed.searchText(["其他"], 1))[0]?.chunk.path).toBe("other.md");
    expectSame(await answers(indexed, 3), await answers(store, 3));
    plantInFtsOnly(path, EMPTY_CHUNK, "marker"); // no write announced it: the copy answers
    expect(await answeredBy(indexed, "marker")).toBe("memory");
  });

  it("a write by this process keeps the copy only when no other process wrote in between", async () => {
    const { store, indexed } = await openPair();
    await indexed.write({ upserts: embedded(24) });
    await answers(indexed, 1);
    await store.write({ deletes: ["notes/10.md"] });
    await indexed.write({ deletes: ["notes/11.md"] });
    expect(indexed.indexLoaded).toBe(false); // the generation moved by two: dropped
    expectSame(await answers(indexed, 4), await answers(store, 4));
    expect(indexed.indexLoaded).toBe(true);
  });

  it("ranks a churned index exactly as a fresh one: deletes leave BM25's totals exact", async () => {
    const { store, indexed } = await openPair();
    const files = new Map<string, NonNullable<StoreBatch["upserts"]>[number]>();
    const write = async (batch: StoreBatch) => {
      await indexed.write(batch);
      for (const entry of batch.upserts ?? []) files.set(entry.file.path, entry);
      for (const deleted of batch.deletes ?? []) files.delete(deleted);
    };
    const expectFreshRanking = async (seed: number) => {
      const fresh = await temp.open({ path: join(await temp.dir(), "fresh.sqlite") });
      await fresh.write({ upserts: [...files.values()] });
      const expected = await answers(fresh, seed);
      expect(await answers(store, seed)).toEqual(expected); // FTS5, exactly
      expectSame(await answers(indexed, seed), expected);
    };
    await write({ upserts: corpus(20) });
    await answers(indexed, 1);
    await write({ upserts: corpus(21).slice(0, 2), deletes: ["notes/39.md"] });
    await expectFreshRanking(2);
    for (let round = 0; round < 6; round++) {
      await write({
        upserts: corpus(30 + round).slice(round * 6, round * 6 + 9),
        deletes: [`notes/${String((round * 6 + 9) % 39).padStart(2, "0")}.md`],
      });
    }
    await expectFreshRanking(3);
  });
});

describe("withMemoryIndex loading in the background", () => {
  it("the store answers until the load completes, then the copy, alike", async () => {
    const { store, indexed, path } = await openPair(0);
    await store.write({ upserts: embedded(25) });
    plantInFtsOnly(path, EMPTY_CHUNK, "marker");
    // No turn of the event loop between these two: the load has not even read its first page.
    expect(await answeredBy(indexed, "marker")).toBe("fts5");
    expect(await answeredBy(indexed, "marker")).toBe("fts5");
    await indexed.indexReady();
    expect(await answeredBy(indexed, "marker")).toBe("memory");
    expect(indexed.indexLoaded).toBe(true);
  });

  it("a write during the load: not kept; a later load is, and is current", async () => {
    const { store, indexed, path } = await openPair(0);
    await store.write({ upserts: embedded(26) });
    plantInFtsOnly(path, EMPTY_CHUNK, "marker");
    expect(await answeredBy(indexed, "marker")).toBe("fts5"); // the load begins
    await store.write({ upserts: [upsert("new.md", [[1, ["新词", "the"]]])] });
    await indexed.indexReady();
    expect(indexed.indexLoaded).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the retry wait
    expect(await answeredBy(indexed, "marker")).toBe("fts5"); // starts a load again
    await indexed.indexReady();
    expect(await answeredBy(indexed, "marker")).toBe("memory");
    expect((await indexed.searchText(["新词"], 1))[0]?.chunk.path).toBe("new.md");
  });

  it("closing stops a load under way; reset and a replaced file drop the copy", async () => {
    const { store, indexed } = await openPair();
    await store.write({ upserts: embedded(27) });
    await answers(indexed, 1);
    await indexed.reset({ dims: DIMS });
    expect(await indexed.searchText(["the"], 5)).toEqual([]);
    await indexed.write({ upserts: embedded(28).slice(0, 3) });
    expect((await indexed.searchText(["the"], 40)).length).toBeGreaterThan(0);
    await indexed.close();
    await indexed.indexReady();
    await expect(indexed.searchText(["the"], 5)).rejects.toThrow();
  });

  it("passes a store without the scan methods through", async () => {
    const plain = { kind: "plain" } as unknown as MemoryStore;
    const wrapped: MemoryIndexedStore = withMemoryIndex(plain);
    expect(wrapped).toBe(plain);
    await wrapped.indexReady();
    expect(wrapped.indexLoaded).toBe(false);
  });
});
