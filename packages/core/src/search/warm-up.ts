import type { MemoryIndexedStore } from "../ranking/with-memory-index.js";
import type { SearchOptions, SearchResponse } from "./types.js";

/** What {@link warmUp} needs of a `Memory`. */
export interface WarmUpTarget {
  readonly store: Pick<MemoryIndexedStore, "listFiles" | "getChunks"> &
    Partial<Pick<MemoryIndexedStore, "loadIndex" | "getVectors" | "searchVector">>;
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
}

/** What {@link warmUp} did. */
export interface WarmUpReport {
  /** Searches are answered from the in-memory index (false: by the store itself). */
  indexLoaded: boolean;
  /** Whether a search ran (false: the index holds nothing to search for). */
  searched: boolean;
  /** Wall time, in ms. */
  ms: number;
}

/** Characters of a stored chunk that make the warm-up query. */
const QUERY_CHARS = 48;

/**
 * Get a long-lived process (an MCP server, `engram ui`, a server of your own) ready for its first
 * search, in the background right after it opened the memory: load the in-memory index when the
 * store has one in front (`withMemoryIndex`), then search once for words of a stored chunk, so
 * that the analyzer, the store's statements, the in-memory search and the snippet code have run
 * before anyone waits on them. Measured with `engram-bench perf` on SQLite: the first keyword
 * search of a new process at 10,000 chunks took 10 ms cold and 2.7 ms after a 0.55 s warm-up; the
 * first vector search at 100,000, 94 ms and 16 ms after 4.8 s (most of it loading the index). The
 * search is keyword-only, not reranked and not recorded in the recall log; the vector side is run
 * with a stored vector. No embedding provider or language model is called, and nothing leaves
 * the process.
 *
 * Best effort: a failure (the store closed under it, a damaged index) is swallowed, and the first
 * real search then pays as it would have.
 */
export async function warmUp(memory: WarmUpTarget): Promise<WarmUpReport> {
  const started = performance.now();
  let indexLoaded = false;
  let searched = false;
  try {
    indexLoaded = (await memory.store.loadIndex?.()) ?? false;
    const sample = await sampleChunk(memory.store);
    if (sample) {
      const query = sample.text.replace(/\s+/g, " ").trim().slice(0, QUERY_CHARS);
      await memory.search(query, { mode: "keyword", rerank: false, recordRecall: false });
      searched = true;
      const { getVectors, searchVector } = memory.store;
      if (getVectors && searchVector) {
        const vector = (await getVectors.call(memory.store, [sample.id])).get(sample.id);
        if (vector) await searchVector.call(memory.store, vector, 6);
      }
    }
  } catch {
    // best effort: the first real search pays as it would have
  }
  return { indexLoaded, searched, ms: performance.now() - started };
}

/** A chunk of the first file a default search covers (memory, not archived), if any. */
async function sampleChunk(
  store: WarmUpTarget["store"],
): Promise<{ id: string; text: string } | undefined> {
  const files = await store.listFiles({ source: "memory" });
  const file = files.find((f) => f.tier !== "archive");
  if (!file) return undefined;
  const chunk = (await store.getChunks(file.path)).find((c) => c.text.trim() !== "");
  return chunk && { id: chunk.id, text: chunk.text };
}
