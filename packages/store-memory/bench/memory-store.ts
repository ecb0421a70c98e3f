/**
 * Figures behind the README's design notes, on synthetic workspaces of 1,000 and 10,000 chunks
 * (files of 100 chunks), 80 Zipf-distributed terms per chunk (20,000-word vocabulary), 384-d
 * vectors.
 *
 *   node --expose-gc --import tsx bench/memory-store.ts [runs]
 *
 * Every figure is the median of `runs` (default 7) fresh measurements.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChunkRecord, FileRecord } from "@engram/core";
import { seededRandom } from "@engram/core/testing";
import winkBm25 from "wink-bm25-text-search";
import { BM25_PARAMS, idf, termWeight, WEIGHT_PRECISION } from "../src/bm25.js";
import { createMemoryStore } from "../src/index.js";

/** Workspace sizes, in files of 100 chunks. */
const SIZES = [10, 100];
const CHUNKS_PER_FILE = 100;
const TERMS_PER_CHUNK = 80;
const VOCABULARY = 20_000;
const DIMS = 384;
const RUNS = Number(process.argv[2] ?? 7);
const QUERIES = 50;

const rand = seededRandom(42);
// Zipf(1) over the vocabulary via its cumulative weights.
const cumulative: number[] = [];
let total = 0;
for (let r = 1; r <= VOCABULARY; r++) {
  total += 1 / r;
  cumulative.push(total);
}
function word(): string {
  const x = rand() * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cumulative[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return `w${lo}`;
}
function vector(): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = rand() * 2 - 1;
  return v;
}

function upsertOf(f: number, salt = ""): { file: FileRecord; chunks: ChunkRecord[] } {
  const path = `memory/notes/file-${String(f).padStart(3, "0")}.md`;
  const file: FileRecord = {
    path,
    source: "memory",
    tier: f % 3 === 0 ? "long" : "short",
    hash: `h${f}${salt}`,
    mtimeMs: 0,
    size: 1,
  };
  const chunks = Array.from({ length: CHUNKS_PER_FILE }, (_, c): ChunkRecord => {
    const terms = Array.from({ length: TERMS_PER_CHUNK }, word);
    return {
      id: `${path}:${c}${salt}`,
      path,
      source: file.source,
      tier: file.tier,
      startLine: 1 + c * 10,
      endLine: 10 + c * 10,
      headings: ["Notes"],
      text: terms.join(" "),
      hash: `c${f}:${c}${salt}`,
      terms,
      embedding: vector(),
    };
  });
  return { file, chunks };
}

const queries = Array.from({ length: QUERIES }, () => [
  word(),
  word(),
  `w${Math.floor(rand() * 2000)}`,
  `w${Math.floor(rand() * VOCABULARY)}`,
]);
const queryVectors = Array.from({ length: QUERIES }, vector);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const time = async (fn: () => unknown) => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};
/** JS heap plus array buffers (the vectors), after a full GC when `--expose-gc` allows one. */
const heapMiB = () => {
  global.gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 2 ** 20;
};

/**
 * What BM25 would cost without wink: per-chunk term counts and document frequencies kept up to
 * date at write time (timed as `build`), then each query scans the chunks. Not used by the store;
 * measured so the README can compare.
 */
function ownIndex(chunks: readonly ChunkRecord[]) {
  const counts = chunks.map((chunk) => {
    const count = new Map<string, number>();
    for (const term of chunk.terms) count.set(term, (count.get(term) ?? 0) + 1);
    return count;
  });
  const df = new Map<string, number>();
  for (const count of counts)
    for (const term of count.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  let length = 0;
  for (const chunk of chunks) length += chunk.terms.length;
  const avg = length / chunks.length;
  return (query: readonly string[]) => {
    const idfs = query.map((term) => idf(chunks.length, df.get(term) ?? 0));
    let hits = 0;
    counts.forEach((count, d) => {
      let score = 0;
      query.forEach((term, t) => {
        const tf = count.get(term);
        if (tf !== undefined)
          score += termWeight(tf, (chunks[d] as ChunkRecord).terms.length, avg, idfs[t] as number);
      });
      if (score > 0) hits++;
    });
    return hits;
  };
}

const figures = new Map<string, number[]>();
const record = (name: string, value: number) => {
  const list = figures.get(name) ?? [];
  list.push(value);
  figures.set(name, list);
};

const dir = await mkdtemp(join(tmpdir(), "engram-memory-bench-"));
try {
  for (const files of SIZES) {
    const n = `${files * CHUNKS_PER_FILE} chunks`;
    const corpus = Array.from({ length: files }, (_, f) => upsertOf(f));
    const allChunks = corpus.flatMap((upsert) => upsert.chunks);
    for (let run = 0; run < RUNS; run++) {
      const snapshotPath = join(dir, `snapshot-${files}-${run}.jsonl`);
      const store = createMemoryStore({ snapshotPath, snapshotIntervalMs: 0 });
      await store.init();
      await store.reset({ dims: DIMS });
      const heapEmpty = heapMiB();
      record(`${n}: write in one batch, ms`, await time(() => store.write({ upserts: corpus })));
      const heapData = heapMiB();
      record(`${n}: heap for the chunks, terms and vectors, MiB`, heapData - heapEmpty);
      record(
        `${n}: first searchText after a write (wink rebuild), ms`,
        await time(() => store.searchText(queries[0] as string[], 10)),
      );
      record(`${n}: heap for the wink index, MiB`, heapMiB() - heapData);
      const text: number[] = [];
      for (const q of queries) text.push(await time(() => store.searchText(q, 10)));
      record(`${n}: searchText, 4 terms, k=10, index built, ms`, median(text));
      const incremental: number[] = [];
      for (let i = 0; i < 5; i++) {
        const changed = upsertOf(i, `-v${i}`);
        incremental.push(
          await time(async () => {
            await store.write({ upserts: [changed] });
            await store.searchText(queries[i] as string[], 10);
          }),
        );
      }
      record(`${n}: re-index one 100-chunk file, then searchText, ms`, median(incremental));
      const vectors: number[] = [];
      for (const v of queryVectors) vectors.push(await time(() => store.searchVector(v, 10)));
      record(`${n}: searchVector ${DIMS}-d, k=10, ms`, median(vectors));
      const filtered: number[] = [];
      const filter = { tiers: ["long" as const], pathPrefix: "memory/notes/file-0" };
      for (const v of queryVectors) {
        filtered.push(await time(() => store.searchVector(v, 10, filter)));
      }
      record(`${n}: searchVector with tier + path-prefix filter, ms`, median(filtered));
      record(`${n}: snapshot(), ms`, await time(() => store.snapshot()));
      record(`${n}: snapshot file, MiB`, (await stat(snapshotPath)).size / 2 ** 20);
      await store.close();
      const reopened = createMemoryStore({ snapshotPath, snapshotIntervalMs: 0 });
      record(`${n}: init() loading the snapshot, ms`, await time(() => reopened.init()));
      await reopened.close();

      // The rebuild split into wink's two phases (configured as src/text-index.ts does).
      const engine = winkBm25();
      engine.defineConfig({
        fldWeights: { terms: 1 },
        bm25Params: { ...BM25_PARAMS },
        ovFldNames: ["path", "tier", "source"],
      });
      engine.definePrepTasks([(terms: readonly string[]) => terms], "terms");
      record(
        `${n}: wink rebuild, addDoc part, ms`,
        await time(() => {
          allChunks.forEach(({ terms, path, tier, source }, i) => {
            engine.addDoc({ terms, path, tier, source }, i);
          });
        }),
      );
      record(
        `${n}: wink rebuild, consolidate part, ms`,
        await time(() => engine.consolidate(WEIGHT_PRECISION)),
      );

      let search: ((query: readonly string[]) => number) | undefined;
      record(
        `${n}: (not used) own term counts, built once, ms`,
        await time(() => {
          search = ownIndex(allChunks);
        }),
      );
      const own: number[] = [];
      for (const q of queries) own.push(await time(() => search?.(q)));
      record(`${n}: (not used) own term counts, query, ms`, median(own));
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

console.log(
  `store-memory bench: ${TERMS_PER_CHUNK} terms per chunk, ${DIMS}-d vectors, median of ${RUNS} runs (Node ${process.version}${global.gc ? "" : "; run with --expose-gc for heap figures"})`,
);
for (const [name, values] of figures)
  console.log(`${median(values).toFixed(1).padStart(9)}  ${name}`);
