import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMemory, storeFromConfig } from "@engram/cli";
import { createMemory, type Embedder, loadConfig, type Memory } from "@engram/core";
import { withMemoryIndexFactory } from "@engram/core/driver";
import { loadEmbedderModule } from "./embedder-module.js";
import { type FileCachedEmbedder, fileCachedEmbedder } from "./embedding-file-cache.js";

/** Where `--embedder` vectors are kept between runs unless `--embedding-cache` says otherwise. */
export const DEFAULT_EMBEDDING_CACHE = join(tmpdir(), "engram-bench-embeddings");

/**
 * Open a bench workspace's memory as a long-lived CLI process would (config, store from
 * `ENGRAM_STORE` or the config, core's in-memory index in front), with `embedder` instead of the
 * configured providers when one is given.
 */
export async function openBenchMemory(ws: string, embedder?: Embedder): Promise<Memory> {
  if (!embedder) return openMemory(ws, { longLived: true });
  const config = await loadConfig(ws);
  return createMemory({
    workspace: ws,
    config,
    readConfigFile: false,
    store: withMemoryIndexFactory(
      await storeFromConfig(config, process.env.ENGRAM_STORE || undefined),
    ),
    embedder,
  });
}

/** The embedder of `--embedder <module>`, its vectors cached in `cacheDir`; close it when done. */
export async function benchEmbedder(
  spec: string,
  cacheDir: string = DEFAULT_EMBEDDING_CACHE,
): Promise<{ embedder: FileCachedEmbedder; close(): Promise<void> }> {
  const inner = await loadEmbedderModule(spec);
  return {
    embedder: fileCachedEmbedder(inner, cacheDir),
    close: async () => inner.close?.(),
  };
}

/** `id/model, dims` and how many vectors came from the cache file. */
export interface BenchEmbeddingInfo {
  id: string;
  model: string;
  dims: number;
  cache: { file: string; hits: number; misses: number };
}

/** What a result reports about the `--embedder` it ran with. */
export function embeddingInfo(embedder: FileCachedEmbedder): BenchEmbeddingInfo {
  return {
    id: embedder.id,
    model: embedder.model,
    dims: embedder.dims,
    cache: { file: embedder.file, hits: embedder.hits, misses: embedder.misses },
  };
}
