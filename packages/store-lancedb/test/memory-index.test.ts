import {
  type IndexedChunk,
  InMemoryIndex,
  type SearchFilter,
  type StoreBatch,
  type StoreHit,
  withMemoryIndex,
} from "@engram/core/driver";
import { seededRandom } from "@engram/core/testing";
import { describe, expect, it } from "vitest";
import type { LanceDbStore } from "../src/index.js";
import { toChunkRow } from "../src/schema.js";
import { upsert, useTempStores } from "./helpers.js";

// core's withMemoryIndex in front of a real LanceDB store: the copy loads through scanChunks,
// keeps the chunks and vectors it scanned (memoryIndexKeepsChunks), and follows writes by the
// store's generation.

const temp = useTempStores();
const DIMS = 8;
const WORDS = ["deploy", "release", "review", "记忆", "记", "忆", "部署", "café", "the", "v2"];

type Upserts = NonNullable<StoreBatch["upserts"]>;

/** `files` files of 5 chunks over three tiers and two sources; some chunks lack terms or vectors. */
function corpus(seed: number, files = 30, prefix = "notes"): Upserts {
  const next = seededRandom(seed);
  const tiers = ["long", "mid", "short"] as const;
  return Array.from({ length: files }, (_, f) =>
    upsert(
      `${prefix}/${String(f).padStart(3, "0")}.md`,
      Array.from({ length: 5 }, (_, c) => {
        const terms = Array.from(
          { length: c === 4 && f % 7 === 0 ? 0 : 1 + Math.floor(next() * 20) },
          () => WORDS[Math.floor(next() ** 2 * WORDS.length)] as string,
        );
        const vector = c === 3 ? undefined : Array.from({ length: DIMS }, () => next() - 0.4);
        return [c * 10 + 1, terms, vector] as [number, string[], number[] | undefined];
      }),
      { tier: tiers[f % 3], source: f % 5 === 0 ? "sessions" : "memory" },
    ),
  );
}

/** Two instances over one folder (two processes), the second with the index in front. */
async function openPair(backgroundAbove = 1_000_000) {
  const uri = await temp.dir();
  const store = await temp.open({ uri });
  await store.reset({ dims: DIMS });
  const other = await temp.open({ uri });
  const indexed = withMemoryIndex(other, { backgroundAbove });
  return { uri, store, other, indexed };
}

/** Count the scans of `store` (each load of a copy is one). */
function countScans(store: LanceDbStore): { scans: number } {
  const counter = { scans: 0 };
  const scan = store.scanChunks?.bind(store);
  Object.assign(store, {
    scanChunks: () => {
      counter.scans++;
      return scan?.() ?? [];
    },
  });
  return counter;
}

/** Count the chunks and vectors read from `store` by id. */
function countReads(store: LanceDbStore): { ids: number } {
  const counter = { ids: 0 };
  const getChunksById = store.getChunksById?.bind(store);
  const getVectors = store.getVectors?.bind(store);
  Object.assign(store, {
    getChunksById: (ids: readonly string[]) => {
      counter.ids += ids.length;
      return getChunksById?.(ids);
    },
    getVectors: (ids: readonly string[]) => {
      counter.ids += ids.length;
      return getVectors?.(ids);
    },
  });
  return counter;
}

/**
 * Add a chunk holding `marker` to the chunks table behind the store's back (no generation moves):
 * a search for `marker` finds it only when LanceDB answers.
 */
async function plant(uri: string, marker: string): Promise<void> {
  const [chunk] = upsert("planted.md", [[1, [marker]]]).chunks;
  const table = await temp.table(uri, "chunks");
  await table.add([toChunkRow(chunk as NonNullable<typeof chunk>, true)]);
}

const where = (hits: StoreHit[]) => hits.map((hit) => `${hit.chunk.id} ${hit.score}`);
const FILTERS: Array<SearchFilter | undefined> = [
  undefined,
  { tiers: ["long", "mid"] },
  { sources: ["sessions"] },
  { pathPrefix: "notes/01" },
];

describe("the generation", () => {
  it("grows by one per write and reset, not for meta or upkeep; another instance's write moves it", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri });
    const other = await temp.open({ uri });
    expect(await store.generation?.()).toBe(0);
    await store.reset({ dims: DIMS });
    await store.write({ upserts: corpus(1, 3) });
    expect(await store.generation?.()).toBe(2);
    await store.write({ upserts: corpus(2, 3), deletes: ["notes/000.md"] });
    await store.setMeta("engram.identity", "x");
    await store.optimize();
    expect(await store.generation?.()).toBe(3);
    expect(await other.generation?.()).toBe(3);
    await other.write({ deletes: ["notes/001.md"] });
    expect(await store.generation?.()).toBe(4);
  });
});

describe("what the copy reads", () => {
  it("scanChunks: every chunk with its terms and its vector at unit length, a page at a time", async () => {
    const store = await temp.open();
    await store.reset({ dims: DIMS });
    const upserts = corpus(3, 60); // 300 chunks: two pages
    await store.write({ upserts });
    const pages: IndexedChunk[][] = [];
    for await (const page of store.scanChunks?.() ?? []) pages.push(page);
    expect(pages.map((page) => page.length)).toEqual([256, 44]);
    const scanned = new Map(pages.flat().map((chunk) => [chunk.id, chunk]));
    const written = upserts.flatMap((entry) => entry.chunks);
    expect(scanned.size).toBe(written.length);
    for (const chunk of written) {
      const { terms, embedding, ...where } = scanned.get(chunk.id) as IndexedChunk;
      const { id, path, tier, source, startLine, endLine } = chunk;
      expect(where).toMatchObject({ id, path, tier, source, startLine, endLine });
      expect(terms).toEqual(chunk.terms);
      if (!chunk.embedding) expect(embedding).toBeNull();
      else expect(cosine(embedding as Float32Array, chunk.embedding)).toBeCloseTo(1, 6);
      if (embedding) expect(Math.hypot(...embedding)).toBeCloseTo(1, 6);
    }
  });

  it("getChunksById and getVectors: from the table, before and after a write", async () => {
    const store = await temp.open();
    await store.reset({ dims: DIMS });
    const upserts = corpus(4, 10);
    await store.write({ upserts });
    const ids = ["absent", "notes/002.md:1", "notes/002.md:31", "notes/007.md:41", "it's"];
    const read = async () => ({
      chunks: (await store.getChunksById?.(ids))?.sort((a, b) => a.id.localeCompare(b.id)),
      vectors: [...((await store.getVectors?.(ids)) ?? [])].sort(),
    });
    const fromTable = await read();
    expect(fromTable.chunks?.map((chunk) => chunk.id)).toEqual([
      "notes/002.md:1",
      "notes/002.md:31",
      "notes/007.md:41",
    ]);
    expect(fromTable.chunks?.[0]).not.toHaveProperty("terms");
    // Chunk :31 has none.
    expect(fromTable.vectors.map(([id]) => id)).toEqual(["notes/002.md:1", "notes/007.md:41"]);
    await store.write({
      upserts: [upsert("notes/002.md", [[1, ["new"], [1, 0, 0, 0, 0, 0, 0, 0]]])],
    });
    const written = await read();
    expect(written.chunks?.map((chunk) => [chunk.id, chunk.text])).toEqual([
      ["notes/002.md:1", "new"],
      ["notes/007.md:41", fromTable.chunks?.[2]?.text],
    ]);
    expect(written.vectors).toEqual([
      ["notes/002.md:1", Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0])],
      fromTable.vectors[1],
    ]);
  });
});

describe("withMemoryIndex over LanceDB", () => {
  it("ranks as core's InMemoryIndex over the same chunks, from memory", async () => {
    const { store, other, indexed } = await openPair();
    const reads = countReads(other);
    const upserts = corpus(5);
    await store.write({ upserts });
    const reference = new InMemoryIndex();
    reference.add(upserts.flatMap((entry) => entry.chunks));
    const next = seededRandom(6);
    for (let q = 0; q < 12; q++) {
      const terms = Array.from({ length: 1 + (q % 3) }, () => WORDS[q % WORDS.length] as string);
      const vector = Float32Array.from({ length: DIMS }, () => next() - 0.4);
      for (const k of [1, 5, 40]) {
        for (const filter of FILTERS) {
          const expected = reference.searchText(terms, k, filter);
          const text = await indexed.searchText(terms, k, filter);
          expect(where(text)).toEqual(where(expected as unknown as StoreHit[]));
          const nearest = await reference.searchVector(vector, k, filter);
          const found = await indexed.searchVector(vector, k, filter);
          expect(found.map((hit) => hit.chunk.id)).toEqual(nearest.map((hit) => hit.chunk.id));
          for (const [i, hit] of found.entries()) {
            expect(hit.score).toBeCloseTo(nearest[i]?.score ?? 0, 6);
          }
        }
      }
    }
    expect(indexed.indexLoaded).toBe(true);
    expect(reads.ids).toBe(0);
  });

  it("follows this instance's writes without loading again", async () => {
    const { uri, other, indexed } = await openPair();
    const counter = countScans(other);
    const reads = countReads(other);
    await indexed.write({ upserts: corpus(7) });
    expect(await indexed.searchText(["deploy"], 5)).not.toEqual([]);
    expect(counter.scans).toBe(1);
    await plant(uri, "marker"); // no write announced it: only LanceDB finds it
    expect(await other.searchText(["marker"], 5)).toHaveLength(1);
    await indexed.write({
      upserts: [upsert("new.md", [[1, ["新词", "the"], [1, 2, 3, 4, 5, 6, 7, 8]]])],
    });
    await indexed.write({ deletes: ["notes/004.md"] });
    expect((await indexed.searchText(["新词"], 1))[0]?.chunk.path).toBe("new.md");
    const near = await indexed.searchVector(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 1);
    expect(near[0]?.chunk.path).toBe("new.md");
    expect(near[0]?.score).toBeCloseTo(1, 6);
    const paths = (await indexed.searchText(["the", "deploy"], 200)).map((hit) => hit.chunk.path);
    expect(paths).not.toContain("notes/004.md");
    expect(await indexed.searchText(["marker"], 5)).toEqual([]);
    expect(counter.scans).toBe(1);
    expect(reads.ids).toBe(0);
    expect(indexed.indexLoaded).toBe(true);
  });

  it("loads again after another instance writes, and answers what it wrote", async () => {
    const { store, other, indexed } = await openPair();
    const counter = countScans(other);
    await store.write({ upserts: corpus(8) });
    expect(await indexed.searchText(["deploy"], 5)).not.toEqual([]);
    await store.write({ upserts: [upsert("other.md", [[1, ["其他"], [8, 7, 6, 5, 4, 3, 2, 1]]])] });
    expect((await indexed.searchText(["其他"], 1))[0]?.chunk.path).toBe("other.md");
    expect(counter.scans).toBe(2);
    const near = await indexed.searchVector(Float32Array.from([8, 7, 6, 5, 4, 3, 2, 1]), 1);
    expect(near[0]?.chunk.path).toBe("other.md");
    expect(indexed.indexLoaded).toBe(true);
  });

  it("copies nothing over memoryIndexMaxChunks: LanceDB answers", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri, memoryIndexMaxChunks: 100 });
    expect(store.memoryIndexMaxChunks).toBe(100);
    await store.reset({ dims: DIMS });
    const counter = countScans(store);
    const indexed = withMemoryIndex(store);
    await indexed.write({ upserts: corpus(10) }); // 150 chunks
    await plant(uri, "marker"); // only LanceDB itself finds it
    expect(await indexed.searchText(["marker"], 5)).toHaveLength(1);
    await indexed.indexReady();
    expect(await indexed.searchText(["marker"], 5)).toHaveLength(1);
    expect(indexed.indexLoaded).toBe(false);
    expect(counter.scans).toBe(0);
  });

  it("a write here after another instance's: the copy is dropped, and loaded again", async () => {
    const { store, indexed } = await openPair();
    await indexed.write({ upserts: corpus(9) });
    await indexed.searchText(["deploy"], 5);
    await store.write({ deletes: ["notes/010.md"] });
    await indexed.write({ deletes: ["notes/011.md"] });
    expect(indexed.indexLoaded).toBe(false);
    const paths = (await indexed.searchText(["the", "deploy"], 200)).map((hit) => hit.chunk.path);
    expect(paths.filter((path) => path === "notes/010.md" || path === "notes/011.md")).toEqual([]);
    expect(indexed.indexLoaded).toBe(true);
  });
});

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}
