import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import { asModelError, localModelError } from "./chat-errors.js";
import { messageOf } from "./errors.js";
import { llamaLog } from "./llama-log.js";
import { sharedLlama } from "./llama-runtime.js";
import type { LocalGpu } from "./settings.js";

/** What {@link ChatModelLoader} loads. */
export interface ChatLoaderConfig {
  path: string;
  /** The model's name in messages (the file's base name). */
  model: string;
  gpu: LocalGpu;
  threads: number | undefined;
  /** The context size (already checked against the training context). */
  contextSize: number;
  /** Loading the weights and creating the context must finish within this many ms. */
  timeoutMs: number;
}

/** A loaded chat model: one context with one sequence, which the calls take turns on. */
export interface LoadedChatModel {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
}

/**
 * Loads a GGUF chat model on first use, once (concurrent first calls share one load; a failed
 * load is forgotten so a later call may try again), within `timeoutMs`: node-llama-cpp's
 * `loadSignal` / `createSignal` abort a load that takes longer. Nothing is ever downloaded or
 * compiled (the shared runtime is made with `build: "never"`).
 */
export class ChatModelLoader {
  readonly #config: ChatLoaderConfig;
  #loading: Promise<LoadedChatModel> | undefined;
  #loads = 0;
  #disposed = false;

  constructor(config: ChatLoaderConfig) {
    this.#config = config;
  }

  /** How many times loading started. */
  get loads(): number {
    return this.#loads;
  }

  /** The loaded model, loading it on the first call. */
  load(): Promise<LoadedChatModel> {
    if (this.#disposed) return Promise.reject(new Error("the chat model loader is disposed"));
    if (!this.#loading) {
      this.#loads++;
      this.#loading = this.#load().catch((error: unknown) => {
        this.#loading = undefined;
        throw error;
      });
    }
    return this.#loading;
  }

  /** Free the context and the model (after a load in progress ends). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const loaded = await this.#loading?.catch(() => undefined);
    this.#loading = undefined;
    await loaded?.context.dispose();
    await loaded?.model.dispose();
  }

  async #load(): Promise<LoadedChatModel> {
    const { path, model: name, gpu, threads, contextSize, timeoutMs } = this.#config;
    const llama = await sharedLlama(gpu).catch((error: unknown) => {
      throw asModelError(error);
    });
    const signal = AbortSignal.timeout(timeoutMs);
    let model: LlamaModel | undefined;
    try {
      llamaLog.clear();
      model = await llama.loadModel({ modelPath: path, loadSignal: signal });
      const context = await model.createContext({
        contextSize,
        sequences: 1,
        ...(threads ? { threads } : {}),
        createSignal: signal,
      });
      return { llama, model, context, sequence: context.getSequence() };
    } catch (cause) {
      await model?.dispose().catch(() => {});
      if (signal.aborted) {
        throw localModelError("timeout", `loading ${name} took longer than ${timeoutMs} ms`, {
          hint: "raise llm.providers.local.loadTimeoutMs, or use a smaller model",
          cause,
        });
      }
      // llama.cpp's log lines arrive through a thread-safe callback: let them land first.
      await new Promise((resolve) => setImmediate(resolve));
      const said = llamaLog.text();
      const memory = cause instanceof Error && cause.name === "InsufficientMemoryError";
      throw localModelError(
        "bad_input",
        `cannot load ${name} (${path}) with a ${contextSize}-token context: ${messageOf(cause)}${said ? ` (llama.cpp: ${said})` : ""}`,
        {
          hint: memory
            ? "lower llm.providers.local.contextSize, free memory, or use a smaller (more quantised) model"
            : "the file must be a complete GGUF chat model that this node-llama-cpp's llama.cpp supports",
          cause,
        },
      );
    }
  }
}
