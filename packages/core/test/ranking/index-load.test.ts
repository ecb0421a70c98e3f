import { describe, expect, it } from "vitest";
import {
  type IndexedChunk,
  InMemoryIndex,
  type TermCountsPage,
} from "../../src/ranking/in-memory-index.js";
import { javascriptKernel } from "../../src/ranking/vector-kernel.js";

/** A random chunk of English words and Chinese characters and bigrams, some with a vector. */
function randomChunks(count: number, seed: number): IndexedChunk[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const words = [
    ..."deploy pipeline review release index query vector memory note budget".split(" "),
    ..."部 署 检 查 记 忆 数 据 库".split(" "),
    ..."部署 检查 记忆 数据 数据库".split(" "),
  ];
  return Array.from({ length: count }, (_, i) => {
    const length = Math.floor(random() * 30); // some chunks hold no terms
    // Rare terms too: ids far apart in the store's numbering.
    const terms = Array.from({ length }, () =>
      random() < 0.1
        ? `rare${Math.floor(random() * 500)}`
        : (words[Math.floor(random() * words.length)] as string),
    );
    const embedding = i % 3 === 0 ? null : Float32Array.from({ length: 8 }, () => random() * 2 - 1);
    return {
      id: `c${i}`,
      path: `memory/f${Math.floor(i / 4)}.md`,
      tier: i % 2 ? "long" : "short",
      source: "memory",
      startLine: (i % 4) * 10 + 1,
      endLine: (i % 4) * 10 + 5,
      terms,
      embedding,
    };
  });
}

/**
 * The pages a store's term-count scan would give for `chunks`: terms numbered as a store numbers
 * them (here: a shuffled numbering shared by both passes), `pageSize` chunks a page, arrays reused.
 */
function* scan(
  chunks: readonly IndexedChunk[],
  options: { names?: boolean; chunks?: boolean },
  storeIds: Map<string, number>,
  pageSize = 7,
): Generator<TermCountsPage> {
  const named = new Set<number>();
  const ids = new Int32Array(1024);
  const counts = new Int32Array(1024);
  const ends = new Uint32Array(pageSize);
  for (let from = 0; from < chunks.length; from += pageSize) {
    const page = chunks.slice(from, from + pageSize);
    const names = new Map<number, string>();
    let n = 0;
    for (const [i, chunk] of page.entries()) {
      const byId = new Map<number, number>();
      for (const term of chunk.terms) {
        let id = storeIds.get(term);
        if (id === undefined) {
          id = 1000 + storeIds.size * 7;
          storeIds.set(term, id);
        }
        byId.set(id, (byId.get(id) ?? 0) + 1);
        if (!named.has(id)) {
          named.add(id);
          names.set(id, term);
        }
      }
      for (const [id, count] of byId) {
        ids[n] = id;
        counts[n++] = count;
      }
      ends[i] = n;
    }
    yield {
      size: page.length,
      ends,
      ids,
      counts,
      ...(options.names ? { names } : {}),
      ...(options.chunks ? { chunks: page.map(({ terms: _, ...rest }) => rest) } : {}),
    };
  }
}

function load(chunks: readonly IndexedChunk[], second = chunks): InMemoryIndex {
  const index = new InMemoryIndex({ kernel: javascriptKernel });
  const storeIds = new Map<string, number>();
  for (const page of scan(chunks, { names: true }, storeIds)) index.loadTerms(page);
  for (const page of scan(second, { chunks: true }, storeIds)) index.loadChunks(page);
  index.loadDone();
  return index;
}

const QUERIES = [
  ["deploy", "review"],
  ["部署", "检", "查"],
  ["rare7", "rare300", "memory"],
  ["数据库", "数", "budget", "absent"],
];

describe("InMemoryIndex load from a store's term counts", () => {
  const chunks = randomChunks(300, 7);

  it("ranks exactly as chunks added with their terms: same hits, order and scores", async () => {
    const loaded = load(chunks);
    const added = new InMemoryIndex({ kernel: javascriptKernel });
    added.add(chunks);
    expect(loaded.size).toBe(added.size);
    expect(loaded.vectors).toBe(added.vectors);
    for (const query of QUERIES) {
      expect(loaded.searchText(query, 20)).toEqual(added.searchText(query, 20));
      expect(loaded.searchText(query, 5, { tiers: ["long"] })).toEqual(
        added.searchText(query, 5, { tiers: ["long"] }),
      );
      expect(loaded.docFreq(query[0] as string)).toBe(added.docFreq(query[0] as string));
    }
    const vector = Float32Array.from({ length: 8 }, (_, i) => (i % 2 ? 0.5 : -0.25));
    expect(await loaded.searchVector(vector, 10)).toEqual(await added.searchVector(vector, 10));
  });

  it("follows writes after the load as an index built by add does", () => {
    const loaded = load(chunks);
    const added = new InMemoryIndex({ kernel: javascriptKernel });
    added.add(chunks);
    const more = randomChunks(40, 99).map((chunk) => ({
      ...chunk,
      id: `n${chunk.id}`,
      path: `memory/new/${chunk.path}`,
    }));
    for (const index of [loaded, added]) {
      index.removePaths(["memory/f3.md", "memory/f10.md"]);
      index.add(more);
    }
    for (const query of QUERIES) {
      expect(loaded.searchText(query, 20)).toEqual(added.searchText(query, 20));
    }
  });

  it("loads an empty store, and chunks without terms", () => {
    const empty = load([]);
    expect(empty.size).toBe(0);
    expect(empty.searchText(["deploy"], 5)).toEqual([]);
    const termless = load(chunks.map((chunk) => ({ ...chunk, terms: [] })));
    expect(termless.size).toBe(chunks.length);
    expect(termless.searchText(["deploy"], 5)).toEqual([]);
  });

  it("throws when the store changed between the passes (the caller drops the load)", () => {
    const changed = chunks.map((chunk, i) =>
      i === 150 ? { ...chunk, terms: [...chunk.terms, "deploy"] } : chunk,
    );
    expect(() => load(chunks, changed)).toThrow(/changed between the passes/);
    expect(() => load(chunks, chunks.slice(0, 290))).toThrow(/changed between the passes/);
    // Chunks pass 1 never saw: more slots, or terms never named.
    expect(() => load(chunks.slice(0, 290), chunks)).toThrow(/changed between|never named/);
    const renamed = chunks.map((chunk, i) => (i === 5 ? { ...chunk, terms: ["unseen"] } : chunk));
    expect(() => load(chunks, renamed)).toThrow();
  });

  it("refuses a load into an index that holds chunks, and add during a load", () => {
    const index = new InMemoryIndex({ kernel: javascriptKernel });
    index.add(chunks.slice(0, 2));
    const [page] = scan(chunks, { names: true }, new Map());
    expect(() => index.loadTerms(page as TermCountsPage)).toThrow(/empty index/);
    const loading = new InMemoryIndex({ kernel: javascriptKernel });
    const [first] = scan(chunks, { names: true }, new Map());
    loading.loadTerms(first as TermCountsPage);
    expect(() => loading.add(chunks.slice(0, 1))).toThrow(/during a load/);
  });
});
