import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MemoryStore, StoreBatch } from "@engram/core/driver";
import { seededRandom } from "@engram/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { readBm25Totals } from "../src/fulltext.js";
import { CHUNK_TERMS_TABLE, FTS_TABLE } from "../src/schema.js";
import { StatementCache } from "../src/statements.js";
import { TermCountReader } from "../src/term-counts.js";
import { type Answers, answersFor, upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const SETTLE_CHILD = fileURLToPath(new URL("./fixtures/settle-child.mjs", import.meta.url));

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

/** FTS5's BM25 totals as `bm25()` reads them (its averages record). */
function bm25Totals(dbPath: string) {
  const db = new Database(dbPath, { readonly: true });
  try {
    return readBm25Totals(new StatementCache(db));
  } finally {
    db.close();
  }
}

/** The totals BM25 should see: chunks holding terms, and their terms, from `chunk_terms`. */
function liveTotals(dbPath: string) {
  const db = new Database(dbPath, { readonly: true });
  try {
    const reader = new TermCountReader();
    const totals = { rows: 0, tokens: 0 };
    for (const blob of db.prepare(`SELECT terms FROM ${CHUNK_TERMS_TABLE}`).pluck().iterate()) {
      let length = 0;
      for (reader.read(blob as Buffer); reader.next(); ) length += reader.count;
      if (length > 0) totals.rows++;
      totals.tokens += length;
    }
    return totals;
  } finally {
    db.close();
  }
}

/** A store searching from memory from its first search, and one that always asks FTS5. */
async function openPair() {
  const path = join(await temp.dir(), "index.sqlite");
  const memory = await temp.open({ path, keywordMemoryAfterSearches: 0 });
  const fts = await temp.open({ path, keywordMemoryMb: 0 });
  return { memory, fts, path };
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

describe("keyword search from in-memory postings", () => {
  it("answers exactly as FTS5 does: same chunks, order, ties and scores", async () => {
    const { memory, fts, path } = await openPair();
    await memory.write({ upserts: corpus(1) });
    const expected = await answers(fts, 7);
    expect(await answers(memory, 7)).toEqual(expected);
    expect(expected.chunks.some((line) => line.split(" ").length === 40)).toBe(true);
    expect(new Set(expected.scores).size).toBeGreaterThan(100);
    // Planting changes FTS5's totals behind the copy's back: compare answers before it.
    plantInFtsOnly(path, EMPTY_CHUNK, "marker");
    expect(await answeredBy(memory, "marker")).toBe("memory");
    expect(await answeredBy(fts, "marker")).toBe("fts5");
    // Defaults: the first search asks FTS5, the later ones memory.
    const defaults = await temp.open({ path });
    expect(await answeredBy(defaults, "marker")).toBe("fts5");
    expect(await answeredBy(defaults, "marker")).toBe("memory");
    expect(await answers(defaults, 7)).toEqual(await answers(fts, 7));
  });

  it("follows its own writes: added, replaced and deleted chunks, and many of them", async () => {
    const { memory, fts } = await openPair();
    await memory.write({ upserts: corpus(2) });
    await answers(memory, 3); // loads the postings
    // Few enough changes that the copy follows them (it reloads past a quarter of its chunks).
    await memory.write({
      upserts: [upsert("new.md", [[1, ["新词", "the"]]]), ...corpus(4).slice(0, 3)],
      deletes: ["notes/20.md"],
    });
    expect((await memory.searchText(["新词"], 1))[0]?.chunk.path).toBe("new.md");
    expect(await answers(memory, 5)).toEqual(await answers(fts, 5));
    // More churn than the copy follows (it reloads): still the same answers.
    for (let round = 0; round < 4; round++) {
      await memory.write({ upserts: corpus(10 + round).slice(round * 10, round * 10 + 10) });
    }
    expect(await answers(memory, 6)).toEqual(await answers(fts, 6));
  });

  it("follows another connection's writes to the same file", async () => {
    const { memory, fts } = await openPair();
    await fts.write({ upserts: corpus(3) });
    const before = await answers(memory, 9);
    await fts.write({ upserts: corpus(6).slice(0, 15), deletes: ["notes/30.md"] });
    const after = await answers(memory, 9);
    expect(after.chunks).not.toEqual(before.chunks);
    expect(after).toEqual(await answers(fts, 9));
    await fts.reset({ dims: null });
    expect(await memory.searchText(["the"], 5)).toEqual([]);
  });

  it("keeps its copy unchanged when a write rolls back", async () => {
    const { memory, fts } = await openPair();
    await memory.write({ upserts: corpus(5) });
    const before = await answers(memory, 11);
    // The second file reuses a chunk id of the first: the insert fails mid-transaction.
    const ok = upsert("ok.md", [[1, ["the", "记忆"]]]);
    const clash = upsert("clash.md", [[1, ["the"]]]);
    clash.chunks = clash.chunks.map((chunk) => ({ ...chunk, id: "ok.md:1" }));
    await expect(
      memory.write({ upserts: [ok, clash], deletes: ["notes/01.md"] }),
    ).rejects.toThrow();
    expect(await answers(memory, 11)).toEqual(before);
    await memory.write({ deletes: ["notes/00.md"] });
    expect(await answers(memory, 11)).toEqual(await answers(fts, 11));
  });

  it("leaves searches to FTS5 when the postings exceed the memory budget", async () => {
    const { fts, path } = await openPair();
    await fts.write({ upserts: corpus(8) });
    const tiny = await temp.open({ path, keywordMemoryMb: 0.01, keywordMemoryAfterSearches: 0 });
    const roomy = await temp.open({ path, keywordMemoryMb: 1, keywordMemoryAfterSearches: 0 });
    expect(await answers(tiny, 13)).toEqual(await answers(fts, 13));
    expect(await answers(roomy, 13)).toEqual(await answers(fts, 13));
    plantInFtsOnly(path, EMPTY_CHUNK, "marker");
    expect(await answeredBy(tiny, "marker")).toBe("fts5");
    expect(await answeredBy(roomy, "marker")).toBe("memory");
  });

  it("uses FTS5 while some chunk has no terms row (changed behind the store's back)", async () => {
    const { memory, fts, path } = await openPair();
    await fts.write({ upserts: corpus(9) });
    const db = new Database(path);
    db.prepare(
      `DELETE FROM ${CHUNK_TERMS_TABLE} WHERE rowid IN (SELECT rowid FROM chunks WHERE path = ?)`,
    ).run("notes/07.md");
    db.close();
    plantInFtsOnly(path, EMPTY_CHUNK, "marker");
    expect(await answeredBy(memory, "marker")).toBe("fts5");
    expect(await answers(memory, 2)).toEqual(await answers(fts, 2));
  });

  it("ranks a churned index exactly as a fresh one: deletes leave BM25's totals exact", async () => {
    const { memory, fts, path } = await openPair();
    const files = new Map<string, NonNullable<StoreBatch["upserts"]>[number]>();
    const write = async (batch: StoreBatch) => {
      await memory.write(batch);
      for (const upsert of batch.upserts ?? []) files.set(upsert.file.path, upsert);
      for (const deleted of batch.deletes ?? []) files.delete(deleted);
    };
    /** FTS5, the copy and a copy loaded now answer as an index holding only the files left. */
    const expectFreshRanking = async (seed: number) => {
      expect(bm25Totals(path)).toEqual(liveTotals(path));
      const fresh = await temp.open({ path: join(await temp.dir(), "fresh.sqlite") });
      await fresh.write({ upserts: [...files.values()] });
      const expected = await answers(fresh, seed);
      expect(await answers(fts, seed)).toEqual(expected);
      expect(await answers(memory, seed)).toEqual(expected);
      const loaded = await temp.open({ path, keywordMemoryAfterSearches: 0 });
      expect(await answers(loaded, seed)).toEqual(expected);
    };
    await write({ upserts: corpus(20) });
    await answers(memory, 1); // loads the postings
    // Few changes: the copy follows them (removals lower its totals as FTS5's).
    await write({ upserts: corpus(21).slice(0, 2), deletes: ["notes/39.md"] });
    await expectFreshRanking(2);
    for (let round = 0; round < 6; round++) {
      await write({
        upserts: corpus(30 + round).slice(round * 6, round * 6 + 9),
        // Just past the files written (a batch applies its deletes first).
        deletes: [`notes/${String((round * 6 + 9) % 39).padStart(2, "0")}.md`],
      });
    }
    await expectFreshRanking(3);
    await memory.reset({ dims: null });
    expect(bm25Totals(path)).toEqual({ rows: 0, tokens: 0 });
  });

  it("refuses a memory budget or warm-up that is not a sensible number", () => {
    expect(() => temp.create({ path: ":memory:", keywordMemoryMb: Number.NaN })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", hint: expect.stringContaining("128") }),
    );
    expect(() => temp.create({ path: ":memory:", keywordMemoryAfterSearches: -1 })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining("-1") }),
    );
    expect(() => temp.create({ path: ":memory:", keywordMemoryBackgroundAbove: 1.5 })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", hint: expect.stringContaining("2000") }),
    );
  });
});

describe("loading the postings in the background", () => {
  /** A store that loads the postings in the background from its first search, and FTS5 alone. */
  async function openBackground() {
    const path = join(await temp.dir(), "index.sqlite");
    const memory = await temp.open({
      path,
      keywordMemoryAfterSearches: 0,
      keywordMemoryBackgroundAbove: 0,
    });
    const fts = await temp.open({ path, keywordMemoryMb: 0 });
    return { memory, fts, path };
  }
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("answers from FTS5 while the postings load, then from memory, alike", async () => {
    const { memory, fts, path } = await openBackground();
    await fts.write({ upserts: corpus(21) });
    plantInFtsOnly(path, EMPTY_CHUNK, "marker");
    // No turn of the event loop between these two: the load has not even begun its steps.
    expect(await answeredBy(memory, "marker")).toBe("fts5");
    expect(await answeredBy(memory, "marker")).toBe("fts5");
    await memory.settled?.();
    expect(await answeredBy(memory, "marker")).toBe("memory");
    expect(await answers(memory, 7)).toEqual(await answers(fts, 7));
  });

  for (const writer of ["this connection", "another connection"] as const) {
    it(`a write by ${writer} during the load: not kept; a later load is, and is current`, async () => {
      const { memory, fts, path } = await openBackground();
      await memory.write({ upserts: corpus(22) });
      plantInFtsOnly(path, EMPTY_CHUNK, "marker");
      expect(await answeredBy(memory, "marker")).toBe("fts5"); // the load begins
      await (writer === "this connection" ? memory : fts).write({
        upserts: [upsert("new.md", [[1, ["新词", "the"]]])],
        deletes: ["notes/03.md"],
      });
      await memory.settled?.();
      // Overtaken: FTS5 answers until a load starts again (~250 ms later) and finishes.
      expect(await answeredBy(memory, "marker")).toBe("fts5");
      await pause(300);
      expect(await answeredBy(memory, "marker")).toBe("fts5");
      await memory.settled?.();
      expect(await answeredBy(memory, "marker")).toBe("memory");
      expect((await memory.searchText(["新词"], 1))[0]?.chunk.path).toBe("new.md");
      expect(await answers(memory, 8)).toEqual(await answers(fts, 8));
    });
  }

  it("a process awaiting settled() stays alive until the load ends (built dist, child process)", async () => {
    const { fts, path } = await openBackground();
    await fts.write({ upserts: corpus(24) });
    await fts.close();
    const dist = new URL("../dist/index.js", import.meta.url);
    const child = spawnSync(process.execPath, [SETTLE_CHILD, dist.href, path], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stderr).toBe("");
    expect(child.stdout).toBe("settled\n");
    expect(child.status).toBe(0);
  });

  it("closing the store stops a load under way", async () => {
    const { memory, fts } = await openBackground();
    await fts.write({ upserts: corpus(23) });
    await memory.searchText(["the"], 5);
    await memory.close();
    await memory.settled?.();
    await pause(20); // a step that ran on the closed connection would throw here, unhandled
    expect(await fts.searchText(["the"], 1)).toHaveLength(1);
  });
});
