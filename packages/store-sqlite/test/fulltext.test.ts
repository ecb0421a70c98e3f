import { type MemoryStore, type StoreHit, type Tier, withMemoryIndex } from "@engram/core/driver";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import { matchExpression } from "../src/fulltext.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

describe("FTS5 match expressions", () => {
  it("ORs the unique, non-empty terms, each quoted", () => {
    expect(matchExpression(["deploy", "用户", "deploy", ""])).toBe('"deploy" OR "用户"');
    expect(matchExpression(['say"hi'])).toBe('"say""hi"');
    expect(matchExpression([])).toBeUndefined();
    expect(matchExpression([""])).toBeUndefined();
  });

  it("query terms that look like FTS5 syntax are taken literally", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({
      upserts: [
        upsert("a.md", [
          [1, ["and", "or", "not", "near"]],
          [2, ["other"]],
        ]),
      ],
    });
    for (const term of ['"', "AND", "NOT", "NEAR(", "col:x", "*", "-", "(", "^x"]) {
      await expect(store.searchText([term, "missing"], 5)).resolves.toBeInstanceOf(Array);
    }
    expect((await store.searchText(["not"], 5)).map((hit) => hit.chunk.startLine)).toEqual([1]);
  });

  it("indexes terms as given: Latin with diacritics and digits are never folded or split", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: [upsert("a.md", [[1, ["café", "naïve", "gpt4", "2026"]]])] });
    expect(await store.searchText(["cafe"], 5)).toEqual([]);
    expect(await store.searchText(["gpt"], 5)).toEqual([]);
    for (const term of ["café", "naïve", "gpt4", "2026"]) {
      expect(await store.searchText([term], 5)).toHaveLength(1);
    }
  });
});

describe("terms FTS5 weighs at zero (in half the rows or more)", () => {
  // 40 chunks: "common" in all, "half" in 20, "rare" in 3; chunk i also holds a unique term.
  const corpus = () =>
    upsert(
      "c.md",
      Array.from({ length: 40 }, (_, i): [number, string[]] => [
        i + 1,
        ["common", `only${i}`, ...(i < 20 ? ["half"] : []), ...(i % 13 === 0 ? ["rare"] : [])],
      ]),
    );

  it("are left out only when the other terms still fill k: the top k is unchanged", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: [corpus()] });
    const withCommon = await store.searchText(["rare", "only5", "common", "half"], 4);
    const without = await store.searchText(["rare", "only5"], 4);
    expect(withCommon.map((h) => h.chunk.startLine)).toEqual(without.map((h) => h.chunk.startLine));
  });

  it("still match when nothing else would fill k (OR semantics hold)", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: [corpus()] });
    expect(await store.searchText(["common"], 100)).toHaveLength(40);
    expect(await store.searchText(["rare", "half"], 100)).toHaveLength(22);
    expect(await store.searchText(["half", "missing"], 5)).toHaveLength(5);
  });
});

describe("common terms told apart without counting the chunks when bounds decide", () => {
  // a.md and c.md hold 10 chunks each, b.md 20 between them (rowids 11–30) and is deleted: 20
  // chunks whose rowids span 40. Every chunk holds 3 terms, so the "mid" chunks tie on "mid".
  const chunk = (line: number, terms: string[]): [number, string[]] => [
    line,
    [...terms, ...["fill", "pad", "more"].slice(0, 3 - terms.length)],
  ];
  const file = (path: string, terms: (line: number) => string[]) =>
    upsert(
      path,
      Array.from({ length: 10 }, (_, i) => chunk(i + 1, terms(i + 1))),
    );
  const lines = (hits: readonly StoreHit[]) =>
    hits.map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}:${hit.score}`);

  it("ranks as the true count says when a term sits between the bounds", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({
      upserts: [
        // "mid" in 8 chunks (rare: 16 < 20), "x" in 12 (common: 24 ≥ 20, yet below the span 40).
        file("a.md", (line) => [...(line >= 6 && line <= 9 ? ["mid"] : []), "x"]),
        upsert(
          "b.md",
          Array.from({ length: 20 }, (_, i) => chunk(i + 1, ["gone"])),
        ),
        file("c.md", (line) => (line <= 4 ? ["mid", "x"] : [])),
      ],
    });
    await store.write({ deletes: ["b.md"] });
    // x is common, so the query ranks with "mid" alone: ties in path order, not x's chunks first.
    const alone = await store.searchText(["mid"], 5);
    expect(lines(alone).map((l) => l.split(":").slice(0, 2).join(":"))).toEqual([
      "a.md:6",
      "a.md:7",
      "a.md:8",
      "a.md:9",
      "c.md:1",
    ]);
    expect(lines(await store.searchText(["mid", "x"], 5))).toEqual(lines(alone));
    // "fill" is in every chunk (2·20 ≥ the span): the bounds alone decide, alike.
    expect(lines(await store.searchText(["mid", "fill"], 5))).toEqual(lines(alone));
  });
});

describe("remembered term statistics", () => {
  // Document frequencies are cached per connection; every change to the index must be seen.
  const startLines = (hits: readonly StoreHit[]) =>
    hits.map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}`);

  it("follow this connection's writes, deletes and reset", async () => {
    const store = await temp.open({ path: ":memory:" });
    expect(await store.searchText(["部署", "window"], 5)).toEqual([]);
    await store.write({ upserts: [upsert("a.md", [[1, ["部署", "friday"]]])] });
    expect(startLines(await store.searchText(["部署", "window"], 5))).toEqual(["a.md:1"]);
    await store.write({ upserts: [upsert("b.md", [[3, ["window"]]])], deletes: ["a.md"] });
    expect(startLines(await store.searchText(["部署", "window"], 5))).toEqual(["b.md:3"]);
    await store.reset({ dims: null });
    expect(await store.searchText(["部署", "window"], 5)).toEqual([]);
  });

  it("follow another connection's writes to the same file", async () => {
    const path = `${await temp.dir()}/index.sqlite`;
    const reader = await temp.open({ path });
    const writer = await temp.open({ path });
    await writer.write({ upserts: [upsert("c.md", [[1, ["common"]]])] });
    expect(await reader.searchText(["rare", "common"], 5)).toHaveLength(1);
    await writer.write({ upserts: [upsert("d.md", [[1, ["rare"]]])] });
    expect(startLines(await reader.searchText(["rare", "common"], 5)).sort()).toEqual([
      "c.md:1",
      "d.md:1",
    ]);
  });
});

describe("BM25 ranked by FTS5 alone, filtered afterwards", () => {
  // 24 files in three tiers; each tier holds copies of the same two texts, so every score comes
  // in a tie group of 12 spread over the tiers, and the tie order (path) puts the short tier last.
  const corpus = () =>
    ["long", "mid", "short"].flatMap((tier, t) =>
      Array.from({ length: 8 }, (_, i) =>
        upsert(
          `notes/${tier}-${i}.md`,
          [[1, i < 4 ? ["deploy", "deploy", `pad${t}`] : ["deploy", "x", "y", `pad${t}`]]],
          { tier: tier as "long" | "mid" | "short" },
        ),
      ),
    );
  const lines = (hits: Array<{ chunk: { path: string } }>) => hits.map((hit) => hit.chunk.path);
  /** Each tier filter and k answered as the joined query answers them (paths and scores). */
  const expectJoinedAnswers = async (
    store: MemoryStore,
    tierFilters: ReadonlyArray<Tier[] | undefined>,
    ks: readonly number[],
  ) => {
    for (const tiers of tierFilters) {
      for (const k of ks) {
        const filter = tiers ? { tiers } : {};
        const optimistic = await store.searchText(["deploy"], k, filter);
        // A path prefix every chunk has forces the joined query.
        const joined = await store.searchText(["deploy"], k, { ...filter, pathPrefix: "notes/" });
        expect(lines(optimistic), `tiers ${tiers?.join(",") ?? "any"}, k ${k}`).toEqual(
          lines(joined),
        );
        expect(optimistic.map((hit) => hit.score)).toEqual(joined.map((hit) => hit.score));
      }
    }
  };

  it("returns what the filter joined in SQL returns: selective filters and ties at the cut-off", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: corpus() });
    await expectJoinedAnswers(
      store,
      [undefined, ["short"], ["mid", "short"], ["long"], []],
      [1, 3, 5, 8, 30],
    );
    const short = await store.searchText(["deploy"], 3, { tiers: ["short"] });
    expect(lines(short)).toEqual(["notes/short-0.md", "notes/short-1.md", "notes/short-2.md"]);
  });

  it("breaks a tie at the cut-off by path even when FTS5 meets the tied rows the other way round", async () => {
    // Written last path first, so rowid order (FTS5's among equal scores) is the reverse of the
    // tie order: an answer that stopped reading at the k-th row would keep the wrong paths.
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: [...corpus()].reverse() });
    await expectJoinedAnswers(store, [undefined, ["short", "mid"], ["long"]], [1, 2, 5, 6, 13]);
    const best = await store.searchText(["deploy"], 2);
    expect(lines(best)).toEqual(["notes/long-0.md", "notes/long-1.md"]);
  });

  it("answers a tie at the cut-off from the 2k + 1 rows FTS5 ranked, filtered or not, without the join", async () => {
    // The join ranks every match with its chunk row (100–300 ms at 100k chunks): a tie the rows
    // ranked can settle must not send the search there. k 8 cuts the first tie group of 12.
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: corpus() });
    const prepare = vi.spyOn(Database.prototype, "prepare"); // calls through, records the SQL
    try {
      for (const filter of [undefined, { tiers: ["long", "mid", "short"] as Tier[] }]) {
        const hits = await store.searchText(["deploy"], 8, filter);
        expect(lines(hits)).toEqual(
          ["long-0", "long-1", "long-2", "long-3", "mid-0", "mid-1", "mid-2", "mid-3"].map(
            (name) => `notes/${name}.md`,
          ),
        );
      }
      const joins = prepare.mock.calls.filter(([sql]) => /JOIN chunks AS c ON c\.rowid/.test(sql));
      expect(joins).toEqual([]);
    } finally {
      prepare.mockRestore();
    }
  });

  it("returns every match when k exceeds them, however many there are", async () => {
    // More ranked rows than a JS call takes as spread arguments (~120k on V8).
    const n = 210_000;
    const store = await temp.open({ path: ":memory:" });
    await store.write({
      upserts: [
        upsert(
          "big.md",
          Array.from({ length: n }, (_, i) => [i + 1, ["common"]]),
        ),
      ],
    });
    const hits = await store.searchText(["common"], 2 ** 31 - 1);
    expect(hits).toHaveLength(n);
    expect(hits.slice(0, 3).map((hit) => hit.chunk.startLine)).toEqual([1, 2, 3]);
  }, 60_000);
});

describe("single Han and kana characters count by presence", () => {
  // Chunks of the given terms padded with unique fillers to `length` terms, plus 20 unrelated
  // chunks, so that every tested term is in few rows (a clear IDF).
  const chunk = (terms: string[], length: number, i: number) => [
    ...terms,
    ...Array.from({ length: length - terms.length }, (_, j) => `pad${i}x${j}`),
  ];
  const corpus = () =>
    upsert("c.md", [
      [1, chunk(["忆"], 10, 1)],
      [2, chunk(["忆", "忆", "忆", "忆", "忆"], 10, 2)],
      [3, chunk(["忆"], 60, 3)],
      [4, chunk(["记忆"], 10, 4)],
      [5, chunk(["记忆", "记忆", "记忆", "记忆", "记忆"], 10, 5)],
      [6, chunk(["记忆"], 60, 6)],
      ...Array.from({ length: 20 }, (_, i): [number, string[]] => [10 + i, chunk([], 10, 10 + i)]),
    ]);
  /** Each hit's score by its start line (0 when a line is not among the hits). */
  const scores = (hits: StoreHit[]) => {
    const byLine = new Map(hits.map((hit) => [hit.chunk.startLine, hit.score as number]));
    return (line: number) => byLine.get(line) ?? 0;
  };

  for (const mode of ["FTS5", "withMemoryIndex"] as const) {
    it(`however often, in however long a chunk (${mode}); bigrams keep BM25's tf and length`, async () => {
      const sqlite = await temp.open({ path: ":memory:" });
      const store = mode === "FTS5" ? sqlite : withMemoryIndex(sqlite);
      await store.write({ upserts: [corpus()] });
      const character = scores(await store.searchText(["忆"], 10));
      expect(character(1)).toBeGreaterThan(0);
      expect(character(2) / character(1)).toBeCloseTo(1, 2);
      expect(character(3) / character(1)).toBeGreaterThan(0.99);
      const bigram = scores(await store.searchText(["记忆"], 10));
      expect(bigram(4)).toBeGreaterThan(0);
      expect(bigram(5) / bigram(4)).toBeGreaterThan(1.3);
      expect(bigram(6) / bigram(4)).toBeLessThan(0.7);
    });
  }
});
