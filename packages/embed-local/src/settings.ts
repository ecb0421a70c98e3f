import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { EngramError, type ProviderSetting, type ProviderSettings } from "@engram/core/driver";
import { PROVIDER_ID } from "./errors.js";
import { isHfUri } from "./hf-uri.js";

/** Where the model runs: `auto` uses a GPU only when its node-llama-cpp build is installed. */
export type LocalGpu = "auto" | "cpu" | "cuda" | "vulkan" | "metal";

/** Every accepted {@link LocalGpu} value. */
export const LOCAL_GPU_VALUES: readonly LocalGpu[] = ["auto", "cpu", "cuda", "vulkan", "metal"];

/** Longest loading the weights may take when `loadTimeoutMs` is not set (5 minutes). */
export const DEFAULT_LOAD_TIMEOUT_MS = 300_000;

/** Texts per `embedBatch` call when `batchSize` is not set. */
export const DEFAULT_BATCH_SIZE = 32;

/**
 * The most tokens per text when `contextSize` is not set: models trained on 8k–32k contexts would
 * otherwise reserve gigabytes (KV cache, attention buffers) for chunks of ~400 tokens.
 */
export const DEFAULT_MAX_CONTEXT_SIZE = 2048;

/** The context size to use: the setting, else the training context capped at 2048 tokens. */
export function contextSizeFor(setting: number | undefined, trainContext: number): number {
  return setting ?? Math.min(trainContext, DEFAULT_MAX_CONTEXT_SIZE);
}

/** Options of {@link localEmbedder} (the same names as the provider settings). */
export interface LocalEmbedderOptions {
  /**
   * The GGUF embedding model: a file path (`~/` and relative paths are resolved), or an `hf:` URI
   * such as `hf:ggml-org/embeddinggemma-300M-GGUF:Q8_0`, downloaded into `modelCacheDir` by the
   * first `create` (that one needs the network; later runs find the file in the cache).
   */
  modelPath: string;
  /** Where `hf:` models are stored (default `~/.cache/engram/models`). */
  modelCacheDir?: string | undefined;
  /** `auto` (default), `cpu`, `cuda`, `vulkan` or `metal`: CPU unless that GPU build is installed. */
  gpu?: LocalGpu | undefined;
  /** CPU threads for inference (default: node-llama-cpp's choice, the math cores). */
  threads?: number | undefined;
  /**
   * Tokens the model sees per text; longer texts keep their head (default: the model's training
   * context, at most 2048).
   */
  contextSize?: number | undefined;
  /** Most texts per `embedBatch` call (`maxBatchSize`, default 32). */
  batchSize?: number | undefined;
  /** Longest loading the weights may take before it is abandoned, in ms (default 300000). */
  loadTimeoutMs?: number | undefined;
}

/** {@link LocalEmbedderOptions} checked and with defaults applied. */
export interface ResolvedLocalOptions {
  /** An absolute file path, or an `hf:` URI as given. */
  modelPath: string;
  modelCacheDir: string;
  gpu: LocalGpu;
  threads: number | undefined;
  contextSize: number | undefined;
  batchSize: number;
  loadTimeoutMs: number;
}

/** The settings the `local` provider reads, as config keys under `embedding.providers.local`. */
export const localSettings: Readonly<Record<string, ProviderSetting>> = {
  modelPath: {
    type: "string",
    description:
      "GGUF embedding model: a file path, or an hf: URI downloaded into modelCacheDir on first use",
  },
  modelCacheDir: {
    type: "string",
    description: "where hf: models are downloaded and looked up (default ~/.cache/engram/models)",
  },
  gpu: {
    type: "string",
    description:
      "auto (default), cpu, cuda, vulkan or metal; CPU unless that GPU build is installed",
  },
  threads: {
    type: "number",
    description: "CPU threads for inference (default: the machine's math cores)",
  },
  contextSize: {
    type: "number",
    description:
      "tokens per text; longer texts are truncated to their head (default: the training context, at most 2048)",
  },
  batchSize: {
    type: "number",
    description: "most texts per embedBatch call (default 32)",
  },
  loadTimeoutMs: {
    type: "number",
    description:
      "longest loading the model may take before it is abandoned, in ms (default 300000)",
  },
};

/** `~/.cache/engram/models`. */
export function defaultModelCacheDir(): string {
  return join(homedir(), ".cache", "engram", "models");
}

/** `~/x` → `<home>/x`, relative → absolute (against the working directory). */
export function expandPath(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homedir(), path.slice(2));
  return resolve(path);
}

/**
 * Check the options and apply the defaults.
 *
 * @throws EngramError `CONFIG_INVALID` naming the setting and the fix.
 */
export function resolveLocalOptions(options: LocalEmbedderOptions): ResolvedLocalOptions {
  const modelPath = typeof options.modelPath === "string" ? options.modelPath.trim() : "";
  if (!modelPath) {
    throw invalid(
      "modelPath is not set",
      `set embedding.providers.${PROVIDER_ID}.modelPath (or ENGRAM_LOCAL_MODEL_PATH) to a .gguf file or an hf: URI`,
    );
  }
  const gpu = options.gpu ?? "auto";
  if (!LOCAL_GPU_VALUES.includes(gpu)) {
    throw invalid(`gpu must be one of ${LOCAL_GPU_VALUES.join(", ")}, got ${JSON.stringify(gpu)}`);
  }
  const cacheDir = options.modelCacheDir?.trim();
  return {
    modelPath: isHfUri(modelPath) ? modelPath : expandPath(modelPath),
    modelCacheDir: cacheDir ? expandPath(cacheDir) : defaultModelCacheDir(),
    gpu,
    threads: positiveInteger("threads", options.threads),
    contextSize: positiveInteger("contextSize", options.contextSize),
    batchSize: positiveInteger("batchSize", options.batchSize) ?? DEFAULT_BATCH_SIZE,
    loadTimeoutMs:
      positiveInteger("loadTimeoutMs", options.loadTimeoutMs) ?? DEFAULT_LOAD_TIMEOUT_MS,
  };
}

/**
 * Provider settings (as `resolveProviderSettings` returns them) → {@link LocalEmbedderOptions}.
 *
 * @throws EngramError `CONFIG_INVALID` for a value of the wrong type.
 */
export function optionsFromSettings(settings: ProviderSettings): LocalEmbedderOptions {
  const string = (key: string): string | undefined => {
    const value = settings[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") throw invalid(`${key} must be a string`);
    return value;
  };
  const number = (key: string): number | undefined => {
    const value = settings[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number") throw invalid(`${key} must be a number`);
    return value;
  };
  return {
    modelPath: string("modelPath") ?? "",
    modelCacheDir: string("modelCacheDir"),
    gpu: string("gpu") as LocalGpu | undefined,
    threads: number("threads"),
    contextSize: number("contextSize"),
    batchSize: number("batchSize"),
    loadTimeoutMs: number("loadTimeoutMs"),
  };
}

function positiveInteger(key: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) {
    throw invalid(`${key} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function invalid(problem: string, hint?: string): EngramError {
  const key = `embedding.providers.${PROVIDER_ID}`;
  return new EngramError("CONFIG_INVALID", `${key}.${problem}`, {
    hint: hint ?? `fix ${key} in engram.config.json (or its ENGRAM_LOCAL_* variable)`,
  });
}
