import { basename } from "node:path";
import type { Embedder } from "@engram/core/driver";
import type { LlamaGpuType } from "node-llama-cpp";
import { closedError, localError, messageOf, PROVIDER_ID } from "./errors.js";
import { readModelHeader } from "./gguf-header.js";
import { resolveHfModel } from "./hf-models.js";
import { isHfUri } from "./hf-uri.js";
import { type LoadedModel, ModelLoader } from "./model-loader.js";
import { contextSizeFor, type LocalEmbedderOptions, resolveLocalOptions } from "./settings.js";
import { unitVector } from "./vectors.js";

/** An {@link Embedder} running a GGUF model in-process, with what it knows about its model. */
export interface LocalEmbedder extends Embedder {
  /** The GGUF file in use (an `hf:` URI resolved to its cached copy). */
  readonly path: string;
  /** `general.architecture` of the model, e.g. `bert`. */
  readonly architecture: string;
  /** True once the weights are loaded (the first embed call loads them). */
  readonly loaded: boolean;
  /** How many times loading the weights started: 0 until the first embed call, then 1. */
  readonly loads: number;
  /** The GPU in use once loaded (`false`: CPU); undefined before. */
  readonly gpu: LlamaGpuType | undefined;
  /**
   * Free the model and its context (the shared llama.cpp backend stays); later calls reject with
   * `CLOSED`.
   */
  close(): Promise<void>;
}

/**
 * An embedder for a local GGUF embedding model (BERT, nomic-bert, Qwen3-Embedding, EmbeddingGemma,
 * …) through node-llama-cpp. Creating it reads the GGUF header only (vector size, training
 * context) and fails early on a missing or non-GGUF file; the weights load on the first embed
 * call, once. Texts longer than the context (`contextSize`, default the training context capped
 * at 2048 tokens) are truncated to their first tokens; an empty text embeds as the model's
 * special tokens alone (`[CLS] [SEP]` for BERT). Vectors are L2-normalised.
 *
 * @throws EngramError `CONFIG_INVALID` for an invalid option; EmbeddingError `bad_input` for a
 *   missing, non-GGUF or damaged model file, `network`/`auth` when an `hf:` model cannot be
 *   downloaded.
 */
export async function localEmbedder(options: LocalEmbedderOptions): Promise<LocalEmbedder> {
  const settings = resolveLocalOptions(options);
  const path = isHfUri(settings.modelPath)
    ? await resolveHfModel(settings.modelPath, settings.modelCacheDir)
    : settings.modelPath;
  const header = await readModelHeader(path);
  const model = basename(path);
  const { dims } = header;
  if (settings.contextSize && header.contextLength && settings.contextSize > header.contextLength) {
    throw localError(
      "bad_input",
      `contextSize ${settings.contextSize} exceeds the training context of ${model} (${header.contextLength} tokens)`,
      { hint: `set contextSize to ${header.contextLength} or less, or leave it unset` },
    );
  }
  const loader = new ModelLoader({
    path,
    model,
    gpu: settings.gpu,
    threads: settings.threads,
    contextSize: header.contextLength
      ? contextSizeFor(settings.contextSize, header.contextLength)
      : settings.contextSize,
    contextSizeSetting: settings.contextSize,
    loadTimeoutMs: settings.loadTimeoutMs,
  });
  const inflight = new Set<Promise<unknown>>();
  let closed = false;

  const run = async <T>(
    signal: AbortSignal | undefined,
    work: (loaded: LoadedModel) => Promise<T>,
  ): Promise<T> => {
    if (closed) throw closedError(model);
    signal?.throwIfAborted();
    const job = (async () => {
      const loaded = await loader.load();
      if (closed) throw closedError(model);
      return work(loaded);
    })();
    inflight.add(job);
    try {
      return await job;
    } finally {
      inflight.delete(job);
    }
  };

  const embedOne = async (
    loaded: LoadedModel,
    text: string,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array> => {
    if (closed) throw closedError(model);
    signal?.throwIfAborted();
    if (typeof text !== "string") {
      throw localError("bad_input", `texts must be strings, got ${typeof text}`);
    }
    let tokens = loaded.model.tokenize(text);
    if (tokens.length > loaded.maxTextTokens) tokens = tokens.slice(0, loaded.maxTextTokens);
    if (tokens.length === 0) {
      if (!loaded.emptyInput) {
        throw localError(
          "bad_input",
          `${model} adds no special tokens, so an empty text has nothing to embed`,
          {
            hint: "skip empty texts, or use a model that adds BOS/CLS or EOS tokens",
          },
        );
      }
      tokens = loaded.emptyInput;
    }
    let vector: readonly number[];
    try {
      vector = (await loaded.context.getEmbeddingFor(tokens)).vector;
    } catch (cause) {
      if (closed) throw closedError(model);
      throw localError("server", `${model} failed to embed a text: ${messageOf(cause)}`, {
        hint: "llama.cpp could not evaluate the text; lower contextSize if memory is short",
        cause,
      });
    }
    return unitVector(vector, dims, model);
  };

  return {
    id: PROVIDER_ID,
    model,
    dims,
    endpoint: `gguf:${header.fingerprint}`,
    maxBatchSize: settings.batchSize,
    maxConcurrency: 1,
    path,
    architecture: header.architecture,
    get loaded() {
      return loader.current !== undefined;
    },
    get loads() {
      return loader.loads;
    },
    get gpu() {
      return loader.current?.gpu;
    },
    embedQuery(text, signal) {
      return run(signal, (loaded) => embedOne(loaded, text, signal));
    },
    embedBatch(texts, signal) {
      return run(signal, async (loaded) => {
        const vectors: Float32Array[] = [];
        for (const text of texts) vectors.push(await embedOne(loaded, text, signal));
        return vectors;
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inflight]);
      await loader.dispose();
    },
  };
}
