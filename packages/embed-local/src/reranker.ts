import { basename } from "node:path";
import type { Reranker } from "@engram/core/driver";
import type { LlamaModel, LlamaRankingContext } from "node-llama-cpp";
import { closedError, localError, messageOf } from "./errors.js";
import { readModelHeader } from "./gguf-header.js";
import { llamaLog } from "./llama-log.js";
import { sharedLlama } from "./llama-runtime.js";
import { contextSizeFor, type LocalEmbedderOptions, resolveLocalOptions } from "./settings.js";

/** Options of {@link localReranker}: the embedder's, without `batchSize`; `modelPath` a GGUF reranker. */
export type LocalRerankerOptions = Omit<LocalEmbedderOptions, "batchSize">;

/** A {@link Reranker} running a GGUF reranker in-process. */
export interface LocalReranker extends Reranker {
  /** The GGUF file in use. */
  readonly path: string;
  /** True once the weights are loaded (the first rerank call loads them). */
  readonly loaded: boolean;
  /** Free the model and its context; later calls reject with `CLOSED`. */
  close(): Promise<void>;
}

/**
 * A reranker for a local GGUF reranking model (a cross-encoder such as bge-reranker or
 * jina-reranker converted to GGUF: BERT-like with rank pooling and a classifier head) through
 * node-llama-cpp's ranking context. Creating it reads the GGUF header only and fails early on a
 * missing or non-GGUF file; the weights load on the first call, once. Scores are node-llama-cpp's:
 * the probability, in [0, 1], that a document answers the query; a document longer than the
 * context is scored in overlapping windows and keeps its best.
 *
 * `hf:` URIs are not taken here (a reranker is named by file; download it with the embedder's
 * `modelCacheDir` flow or by hand).
 *
 * @throws EngramError `CONFIG_INVALID` for an invalid option; EmbeddingError `bad_input` for a
 *   missing, non-GGUF or damaged file, and (on first use) for a model without a ranking head.
 */
export async function localReranker(options: LocalRerankerOptions): Promise<LocalReranker> {
  const settings = resolveLocalOptions({ ...options, batchSize: undefined });
  const path = settings.modelPath;
  const header = await readModelHeader(path);
  const model = basename(path);
  let loading: Promise<{ model: LlamaModel; context: LlamaRankingContext }> | undefined;
  let closed = false;

  const load = () => {
    loading ??= (async () => {
      const llama = await sharedLlama(settings.gpu);
      llamaLog.clear();
      let loaded: LlamaModel;
      try {
        loaded = await llama.loadModel({ modelPath: path });
      } catch (cause) {
        loading = undefined;
        throw localError("bad_input", `cannot load ${model} (${path}): ${messageOf(cause)}`, {
          hint: "the file must be a complete GGUF reranking model that this node-llama-cpp supports",
          cause,
        });
      }
      if (!loaded.fileInsights.supportsRanking) {
        await loaded.dispose();
        loading = undefined;
        throw localError(
          "bad_input",
          `${model} is not a reranking model (it has no ranking head)`,
          {
            hint: "set search.rerank.providers.local.modelPath to a GGUF reranker, e.g. bge-reranker-v2-m3",
          },
        );
      }
      try {
        const context = await loaded.createRankingContext({
          contextSize: contextSizeFor(
            settings.contextSize,
            header.contextLength ?? loaded.trainContextSize,
          ),
          ...(settings.threads ? { threads: settings.threads } : {}),
        });
        return { model: loaded, context };
      } catch (cause) {
        await loaded.dispose();
        loading = undefined;
        throw localError(
          "bad_input",
          `cannot create a ranking context for ${model}: ${messageOf(cause)}`,
          {
            hint: "lower contextSize, or free memory",
            cause,
          },
        );
      }
    })();
    return loading;
  };

  return {
    id: "local",
    model,
    endpoint: path,
    path,
    get loaded() {
      return loading !== undefined && !closed;
    },
    async rerank(query, documents, callOptions = {}) {
      if (closed) throw closedError(model);
      callOptions.signal?.throwIfAborted();
      if (!documents.length) return [];
      const { context } = await load();
      if (closed) throw closedError(model);
      callOptions.signal?.throwIfAborted();
      // A document longer than the context is scored in overlapping windows; its best counts.
      return context.rankAll(query, [...documents], { onOverflow: "maxChunk" });
    },
    async close() {
      if (closed) return;
      closed = true;
      const loaded = await loading?.catch(() => undefined);
      await loaded?.context.dispose();
      await loaded?.model.dispose();
    },
  };
}
