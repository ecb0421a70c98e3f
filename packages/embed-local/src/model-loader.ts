import type { LlamaEmbeddingContext, LlamaGpuType, LlamaModel, Token } from "node-llama-cpp";
import { localError, messageOf } from "./errors.js";
import { llamaLog } from "./llama-log.js";
import { sharedLlama } from "./llama-runtime.js";
import { contextSizeFor, type LocalGpu } from "./settings.js";

/** What {@link ModelLoader} loads, and how. */
export interface LoaderConfig {
  /** The GGUF file (absolute). */
  path: string;
  /** The model's name in messages (the file's base name). */
  model: string;
  gpu: LocalGpu;
  threads: number | undefined;
  /** Tokens per text, when known before loading (else decided from the loaded model). */
  contextSize: number | undefined;
  /** The `contextSize` setting, if any (checked against the training context once loaded). */
  contextSizeSetting: number | undefined;
  /** Longest the weights may take to load (ms); the load is abandoned after it. */
  loadTimeoutMs: number;
}

/** A loaded model with its embedding context, ready to embed. */
export interface LoadedModel {
  model: LlamaModel;
  context: LlamaEmbeddingContext;
  /** The context size, which truncation follows (the setting, or the training context ≤ 2048). */
  contextSize: number;
  /** Most text tokens per input: the context minus one and the special tokens the model adds. */
  maxTextTokens: number;
  /** The input for a text without tokens (the special tokens alone); undefined if there is none. */
  emptyInput: Token[] | undefined;
  /** The GPU in use (`false`: CPU). */
  gpu: LlamaGpuType;
}

/**
 * Loads a GGUF model through node-llama-cpp on first use, once: concurrent first calls share one
 * load (shared `getLlama` backend → `loadModel` → `createEmbeddingContext`), a failed load is
 * forgotten so a later call may try again, and `dispose` frees the context and the model. Nothing
 * is ever downloaded or compiled: `build: "never"` and `skipDownload: true`.
 */
export class ModelLoader {
  readonly #config: LoaderConfig;
  #loading: Promise<LoadedModel> | undefined;
  #current: LoadedModel | undefined;
  #loads = 0;
  #disposed = false;

  constructor(config: LoaderConfig) {
    this.#config = config;
  }

  /** How many times loading started (1 after any number of concurrent first calls). */
  get loads(): number {
    return this.#loads;
  }

  /** The loaded model, or undefined before the first load finished (and after dispose). */
  get current(): LoadedModel | undefined {
    return this.#current;
  }

  /** The loaded model, loading it on the first call. */
  load(): Promise<LoadedModel> {
    if (this.#disposed) return Promise.reject(new Error("the model loader is disposed"));
    if (!this.#loading) {
      this.#loads++;
      this.#loading = this.#load().then(
        (loaded) => {
          this.#current = loaded;
          return loaded;
        },
        (error: unknown) => {
          this.#loading = undefined;
          throw error;
        },
      );
    }
    return this.#loading;
  }

  /**
   * Dispose the context and the model (after a load in progress ends), freeing their memory. The
   * llama.cpp backend is shared and stays (see {@link sharedLlama}).
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const loaded = await this.#loading?.catch(() => undefined);
    this.#current = undefined;
    this.#loading = undefined;
    await loaded?.context.dispose();
    await loaded?.model.dispose();
  }

  async #load(): Promise<LoadedModel> {
    const { path, model: name, threads, gpu } = this.#config;
    const llama = await sharedLlama(gpu);
    let model: LlamaModel | undefined;
    try {
      llamaLog.clear();
      const loadSignal = AbortSignal.timeout(this.#config.loadTimeoutMs);
      try {
        model = await llama.loadModel({
          modelPath: path,
          loadSignal,
          ...(this.#config.contextSize
            ? {
                gpuLayers: {
                  fitContext: { contextSize: this.#config.contextSize, embeddingContext: true },
                },
              }
            : {}),
        });
      } catch (cause) {
        if (loadSignal.aborted) {
          throw localError(
            "bad_input",
            `loading ${name} (${path}) did not finish within ${this.#config.loadTimeoutMs / 1000} s`,
            {
              hint: "the file may be damaged, the model too large for this machine or the disk too slow: download it again, use a smaller model, or raise loadTimeoutMs",
              cause,
            },
          );
        }
        throw await this.#failure(`cannot load ${name} (${path})`, cause, {
          memory: "free memory, or use a smaller (more quantised) model",
          other:
            "the file must be a complete GGUF embedding model that this node-llama-cpp's llama.cpp supports: download it again, or update node-llama-cpp",
        });
      }
      const train = model.trainContextSize;
      const contextSize = contextSizeFor(this.#config.contextSizeSetting, train);
      if (contextSize > train) {
        throw localError(
          "bad_input",
          `contextSize ${contextSize} exceeds the training context of ${name} (${train} tokens)`,
          { hint: `set contextSize to ${train} or less, or leave it unset` },
        );
      }
      let context: LlamaEmbeddingContext;
      llamaLog.clear();
      try {
        // One batch holds a whole text: encoder (BERT-like) models must see it in one pass.
        context = await model.createEmbeddingContext({
          contextSize,
          batchSize: contextSize,
          ...(threads ? { threads } : {}),
        });
      } catch (cause) {
        throw await this.#failure(
          `cannot create a ${contextSize}-token context for ${name}`,
          cause,
          {
            memory: "lower contextSize (chunks are ~400 tokens, so 512 is plenty), or free memory",
            other: "lower contextSize, or check that the file is an embedding model",
          },
        );
      }
      const specials = context.calculateInputLength([]);
      const maxTextTokens = contextSize - 1 - specials;
      if (maxTextTokens < 1) {
        await context.dispose();
        throw localError("bad_input", `contextSize ${contextSize} leaves no room for text`, {
          hint: "raise contextSize or leave it unset",
        });
      }
      return {
        model,
        context,
        contextSize,
        maxTextTokens,
        emptyInput: emptyInput(model, context, specials),
        gpu: llama.gpu,
      };
    } catch (error) {
      await model?.dispose().catch(() => {});
      throw error;
    }
  }

  async #failure(
    what: string,
    cause: unknown,
    hints: { memory: string; other: string },
  ): Promise<Error> {
    // llama.cpp's log lines arrive through a thread-safe callback: let them land first.
    await new Promise((resolve) => setImmediate(resolve));
    const said = llamaLog.text();
    const memory = cause instanceof Error && cause.name === "InsufficientMemoryError";
    return localError(
      "bad_input",
      `${what}: ${messageOf(cause)}${said ? ` (llama.cpp: ${said})` : ""}`,
      { hint: memory ? hints.memory : hints.other, cause },
    );
  }
}

/**
 * The input that embeds an empty text: the special tokens alone (BERT: `[CLS] [SEP]`, as the
 * Hugging Face tokenizer encodes ""). node-llama-cpp adds the missing ones around one of them.
 */
function emptyInput(
  model: LlamaModel,
  context: LlamaEmbeddingContext,
  specials: number,
): Token[] | undefined {
  if (specials === 0) return undefined;
  const { bos, sep, eos } = model.tokens;
  for (const token of [bos, sep, eos]) {
    if (token !== null && context.calculateInputLength([token]) === specials) return [token];
  }
  return undefined;
}
