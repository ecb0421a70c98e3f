import type { ChunkRecord } from "@engram/core";
import { describe, expect, it } from "vitest";
import { scoreDirectly } from "../src/bm25.js";
import { toEntry } from "../src/chunk-entry.js";
import { MIN_WINK_DOCS, TextIndex } from "../src/text-index.js";

let seq = 0;
function entry(path: string, terms: string[], startLine = 1) {
  const record: ChunkRecord = {
    id: `${path}:${startLine}`,
    path,
    source: "memory",
    tier: "long",
    startLine,
    endLine: startLine,
    headings: [],
    text: terms.join(" "),
    hash: "h",
    terms,
    embedding: null,
  };
  return toEntry(record, seq++);
}

const paths = (hits: ReadonlyArray<{ entry: { chunk: { path: string } } }>) =>
  hits.map((hit) => hit.entry.chunk.path);

describe("TextIndex (wink-bm25-text-search)", () => {
  it("scores exactly as the direct BM25, so answers never depend on which one ran", () => {
    const docs = [
      entry("a.md", ["deploy", "pipeline", "deploy", "failed"]),
      entry("b.md", ["deploy", "uses", "github", "actions", "and", "more", "words", "here"]),
      entry("c.md", ["用", "户", "用户", "偏", "好", "偏好"]),
      entry("d.md", ["pipeline"]),
      entry("e.md", ["filler", "text"]),
      entry("f.md", ["户", "户", "户", "口"]),
    ];
    const index = new TextIndex();
    for (const doc of docs) index.add(doc);
    // Single characters last: the wink path adds their scores after the other terms'.
    const query = ["deploy", "pipeline", "用户", "absent", "用", "户"];
    const wink = index.search(query, 10);
    expect(index.builds).toBe(1);

    const direct = new Map<string, number>();
    scoreDirectly(docs, query, (doc, score) => direct.set(doc.chunk.path, score));
    expect(new Map(wink.map((hit) => [hit.entry.chunk.path, hit.score]))).toEqual(direct);
    expect(paths(wink).sort()).toEqual(["a.md", "b.md", "c.md", "d.md", "f.md"]);
  });

  it("counts single Han and kana characters by presence, bigrams and words by frequency", () => {
    const pad = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
    const docs = [
      entry("once.md", ["忆", ...pad(9, "a")]),
      entry("often.md", ["忆", "忆", "忆", "忆", "忆", ...pad(5, "b")]),
      entry("long.md", ["忆", ...pad(59, "c")]),
      entry("bigram-once.md", ["记忆", ...pad(9, "d")]),
      entry("bigram-often.md", ["记忆", "记忆", "记忆", "记忆", "记忆", ...pad(5, "e")]),
      ...Array.from({ length: 10 }, (_, i) => entry(`other${i}.md`, pad(10, `o${i}x`))),
    ];
    const index = new TextIndex();
    for (const doc of docs) index.add(doc);
    const score = (query: string, path: string) =>
      index.search([query], 10).find((hit) => hit.entry.chunk.path === path)?.score as number;
    expect(score("忆", "often.md") / score("忆", "once.md")).toBeCloseTo(1, 2);
    expect(score("忆", "long.md") / score("忆", "once.md")).toBeGreaterThan(0.99);
    expect(score("记忆", "bigram-often.md") / score("记忆", "bigram-once.md")).toBeGreaterThan(1.3);
  });

  it("indexes terms as given: no tokenising, stemming, case folding or prototype keys", () => {
    const index = new TextIndex();
    for (const doc of [
      entry("phrase.md", ["hello world", "c++"]),
      entry("proto.md", ["__proto__", "constructor"]),
      entry("case.md", ["Running"]),
      entry("cjk.md", ["用户", "偏好"]),
    ]) {
      index.add(doc);
    }
    expect(paths(index.search(["hello world"], 10))).toEqual(["phrase.md"]);
    expect(index.search(["hello"], 10)).toEqual([]);
    expect(paths(index.search(["c++"], 10))).toEqual(["phrase.md"]);
    expect(index.search(["c"], 10)).toEqual([]);
    expect(paths(index.search(["__proto__"], 10))).toEqual(["proto.md"]);
    expect(paths(index.search(["constructor"], 10))).toEqual(["proto.md"]);
    expect(index.search(["toString", "hasOwnProperty"], 10)).toEqual([]);
    expect(index.search(["running", "run"], 10)).toEqual([]);
    expect(paths(index.search(["Running"], 10))).toEqual(["case.md"]);
    expect(index.search(["用户偏好"], 10)).toEqual([]);
    expect(paths(index.search(["偏好"], 10))).toEqual(["cjk.md"]);
  });

  it("rebuilds the wink index lazily: once after any number of changes, on the next search", () => {
    const index = new TextIndex();
    const docs = Array.from({ length: 5 }, (_, i) => entry(`f${i}.md`, ["common", `t${i}`]));
    for (const doc of docs) index.add(doc);
    expect(index.builds).toBe(0);

    expect(paths(index.search(["t3"], 10))).toEqual(["f3.md"]);
    index.search(["common"], 10);
    index.search(["t1"], 10);
    expect(index.builds).toBe(1);

    const late = entry("late.md", ["t3"]);
    index.add(late);
    index.remove(docs[0] as (typeof docs)[number]);
    expect(index.builds).toBe(1);
    expect(paths(index.search(["t3"], 10)).sort()).toEqual(["f3.md", "late.md"]);
    expect(index.search(["t0"], 10)).toEqual([]);
    expect(index.builds).toBe(2);

    index.add(entry("no-terms.md", []));
    index.remove(entry("never-added.md", ["x"]));
    index.search(["t3"], 10);
    expect(index.builds).toBe(2);
  });

  it(`scores directly below ${MIN_WINK_DOCS} documents (wink cannot consolidate them)`, () => {
    const index = new TextIndex();
    index.add(entry("a.md", ["alpha", "beta"]));
    index.add(entry("b.md", ["beta"]));
    const hits = index.search(["alpha", "beta"], 10);
    expect(paths(hits)).toEqual(["a.md", "b.md"]);
    for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
    expect(index.builds).toBe(0);

    index.add(entry("c.md", ["gamma"]));
    expect(paths(index.search(["alpha", "beta"], 10))).toEqual(["a.md", "b.md"]);
    expect(index.builds).toBe(1);
  });

  it("asks wink for every match, so k cuts in the contract's tie order", () => {
    const index = new TextIndex();
    // Many equal scores: wink's own order among them is arbitrary.
    for (let i = 19; i >= 0; i--)
      index.add(entry(`tie/${String(i).padStart(2, "0")}.md`, ["same"]));
    index.add(entry("other.md", ["different"]));
    const hits = index.search(["same"], 3);
    expect(paths(hits)).toEqual(["tie/00.md", "tie/01.md", "tie/02.md"]);
    expect(new Set(hits.map((hit) => hit.score)).size).toBe(1);
  });

  it("filters inside wink by tier, source and literal path prefix", () => {
    const index = new TextIndex();
    index.add(entry("memory/a.md", ["x"]));
    index.add(entry("memory/b.md", ["x"]));
    index.add(entry("notes/c.md", ["x"]));
    expect(paths(index.search(["x"], 10, { pathPrefix: "memory/" }))).toEqual([
      "memory/a.md",
      "memory/b.md",
    ]);
    expect(index.search(["x"], 10, { tiers: ["short"] })).toEqual([]);
    expect(index.search(["x"], 10, { sources: [] })).toEqual([]);
    expect(paths(index.search(["x"], 10, { tiers: ["long"], sources: ["memory"] }))).toHaveLength(
      3,
    );
  });
});
