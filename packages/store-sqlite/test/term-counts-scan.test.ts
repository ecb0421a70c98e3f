import { join } from "node:path";
import type { MemoryStore, TermCountsPage } from "@engram/core/driver";
import { seededRandom } from "@engram/core/testing";
import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

// The store's term-count scan (what core's withMemoryIndex loads from): every chunk's terms as
// term ids and counts, named once per scan, and with `chunks` its row and vector; over more than
// one page (1,000 chunks a page).

const temp = useTempStores();
const DIMS = 6;
const WORDS = ["deploy", "review", "the", "café", "部署", "检查", "记忆", "记", "忆", "v2"];

/** 1,300 chunks over 130 files: English and Chinese terms, some repeated, some chunks empty. */
function corpus(): { upserts: ReturnType<typeof upsert>[]; terms: Map<string, string[]> } {
  const next = seededRandom(11);
  const terms = new Map<string, string[]>();
  const upserts = Array.from({ length: 130 }, (_, f) => {
    const path = `notes/${String(f).padStart(3, "0")}.md`;
    return upsert(
      path,
      Array.from({ length: 10 }, (_, c) => {
        const n = c === 9 ? 0 : 1 + Math.floor(next() * 30);
        const chunkTerms = Array.from({ length: n }, () =>
          next() < 0.2
            ? `rare${Math.floor(next() * 5000)}`
            : (WORDS[Math.floor(next() * 10)] as string),
        );
        terms.set(`${path}:${c + 1}`, chunkTerms);
        const embedding =
          c % 4 === 3 ? undefined : Array.from({ length: DIMS }, () => next() - 0.5);
        return [c + 1, chunkTerms, embedding] as [number, string[], number[] | undefined];
      }),
      { tier: f % 2 ? "long" : "short" },
    );
  });
  return { upserts, terms };
}

interface Scanned {
  /** Per chunk id: its terms spelt out and sorted, and its vector. */
  chunks: Map<string, { terms: string[]; embedding: number[] | null }>;
  /** Per page: its ids and counts as read (the arrays are reused from page to page). */
  pages: Array<{ ends: number[]; ids: number[]; counts: number[] }>;
}

/** Both passes of a load, checked to agree page by page. */
async function scanTwice(store: MemoryStore): Promise<Scanned> {
  const scan = store.scanTermCounts?.bind(store);
  if (!scan) throw new Error("no scanTermCounts");
  const copy = (page: TermCountsPage) => {
    const n = page.ends[page.size - 1] ?? 0;
    return {
      ends: [...page.ends.subarray(0, page.size)],
      ids: [...page.ids.subarray(0, n)],
      counts: [...page.counts.subarray(0, n)],
    };
  };
  const names = new Map<number, string>();
  const first: Scanned["pages"] = [];
  for await (const page of scan({ names: true })) {
    for (const [id, term] of page.names ?? []) {
      expect(names.has(id)).toBe(false); // each id named once
      names.set(id, term);
    }
    expect(page.chunks).toBeUndefined();
    first.push(copy(page));
  }
  const chunks: Scanned["chunks"] = new Map();
  const second: Scanned["pages"] = [];
  for await (const page of scan({ chunks: true })) {
    expect(page.names).toBeUndefined();
    const read = copy(page);
    second.push(read);
    let start = 0;
    for (const [i, chunk] of (page.chunks ?? []).entries()) {
      const end = read.ends[i] as number;
      const terms: string[] = [];
      for (let at = start; at < end; at++) {
        const term = names.get(read.ids[at] as number);
        expect(term).toBeDefined();
        for (let n = 0; n < (read.counts[at] as number); n++) terms.push(term as string);
      }
      start = end;
      chunks.set(chunk.id, {
        terms: terms.sort(),
        embedding: chunk.embedding ? [...chunk.embedding] : null,
      });
    }
  }
  expect(second).toEqual(first);
  return { chunks, pages: first };
}

describe("SqliteStore.scanTermCounts", () => {
  it("gives every chunk's terms as ids and counts, and its vector, over several pages", async () => {
    const dir = await temp.dir();
    const store = await temp.open({ path: join(dir, "index.sqlite") });
    await store.reset({ dims: DIMS });
    const { upserts, terms } = corpus();
    await store.write({ upserts });
    const { chunks, pages } = await scanTwice(store);
    expect(pages.map((page) => page.ends.length)).toEqual([250, 250, 250, 250, 250, 50]);
    expect(chunks.size).toBe(1300);
    for (const entry of upserts) {
      for (const chunk of entry.chunks) {
        const scanned = chunks.get(chunk.id);
        expect(scanned?.terms).toEqual([...(terms.get(chunk.id) ?? [])].sort());
        expect(scanned?.embedding).toEqual(chunk.embedding ? [...chunk.embedding] : null);
      }
    }
  });

  it("deleted and replaced chunks are gone, replaced ones with their new terms", async () => {
    const dir = await temp.dir();
    const store = await temp.open({ path: join(dir, "index.sqlite") });
    await store.reset({ dims: DIMS });
    const { upserts } = corpus();
    await store.write({ upserts });
    await store.write({
      deletes: ["notes/000.md"],
      upserts: [upsert("notes/001.md", [[1, ["部署", "部署", "new"], [1, 0, 0, 0, 0, 0]]])],
    });
    const { chunks } = await scanTwice(store);
    expect(chunks.size).toBe(1300 - 19);
    expect(chunks.get("notes/001.md:1")).toEqual({
      terms: ["new", "部署", "部署"],
      embedding: [1, 0, 0, 0, 0, 0],
    });
    expect([...chunks.keys()].some((id) => id.startsWith("notes/000.md"))).toBe(false);
  });

  it("scans a keyword-only store: no vectors", async () => {
    const dir = await temp.dir();
    const store = await temp.open({ path: join(dir, "index.sqlite"), vectors: false });
    await store.write({
      upserts: [
        upsert("a.md", [
          [1, ["记忆", "记", "忆"]],
          [2, []],
        ]),
      ],
    });
    const { chunks } = await scanTwice(store);
    expect(chunks).toEqual(
      new Map([
        ["a.md:1", { terms: ["忆", "记", "记忆"], embedding: null }],
        ["a.md:2", { terms: [], embedding: null }],
      ]),
    );
  });
});
