import { EngramError, type ProviderSetting, type ProviderSettings } from "@engram/core/driver";
import { PROVIDER_ID } from "./errors.js";
import { expandPath, LOCAL_GPU_VALUES, type LocalGpu } from "./settings.js";

/** Defaults of the local language model. */
export const LOCAL_CHAT_DEFAULTS = {
  /** The context when `contextSize` is unset: the training context, at most this. */
  maxContextSize: 4096,
  /** Most tokens an answer may have when the request names no `maxTokens`. */
  maxTokens: 1024,
  /** How long loading the weights and creating the context may take. */
  loadTimeoutMs: 120_000,
} as const;

/** Options of {@link localLanguageModel}: the same names as `llm.providers.local.*`. */
export interface LocalLanguageModelOptions {
  /** The GGUF chat model (a file path; `~/` and relative paths are resolved). */
  modelPath: string;
  /** `auto` (default), `cpu`, `cuda`, `vulkan` or `metal`. */
  gpu?: LocalGpu | undefined;
  /** CPU threads (default: node-llama-cpp's choice, the math cores; 1–2 on a busy machine). */
  threads?: number | undefined;
  /** Tokens of context, prompt and answer together (default: the training context, at most 4096). */
  contextSize?: number | undefined;
  /** Most tokens of an answer when the request names none (default 1024). */
  maxTokens?: number | undefined;
  /** How long loading the weights may take, in ms (default 120000). */
  loadTimeoutMs?: number | undefined;
}

/** {@link LocalLanguageModelOptions} checked, with defaults applied. */
export interface ResolvedLocalChatOptions {
  modelPath: string;
  gpu: LocalGpu;
  threads: number | undefined;
  contextSize: number | undefined;
  maxTokens: number;
  loadTimeoutMs: number;
}

/**
 * The settings of the local language model, as `llm.providers.local.<name>` and
 * `ENGRAM_LLM_LOCAL_<NAME>`. `modelPath` and `contextSize` are its own (`ENGRAM_LOCAL_MODEL_PATH`
 * names the embedding model); `gpu` and `threads` also read `ENGRAM_LOCAL_GPU` / `_THREADS`.
 */
export const localLlmSettings = {
  modelPath: {
    type: "string",
    scoped: true,
    description:
      "GGUF chat model file (not the embedding model), e.g. ~/models/Qwen3-4B-Q4_K_M.gguf",
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
    scoped: true,
    description: `tokens of prompt and answer together (default: the training context, at most ${LOCAL_CHAT_DEFAULTS.maxContextSize})`,
  },
  maxTokens: {
    type: "number",
    scoped: true,
    description: `most tokens of an answer when a call names none (default ${LOCAL_CHAT_DEFAULTS.maxTokens})`,
  },
  loadTimeoutMs: {
    type: "number",
    scoped: true,
    description: `how long loading the model may take, in ms (default ${LOCAL_CHAT_DEFAULTS.loadTimeoutMs})`,
  },
} as const satisfies Record<string, ProviderSetting>;

/**
 * Check the options and apply the defaults.
 *
 * @throws EngramError `CONFIG_INVALID` naming `llm.providers.local.<setting>`.
 */
export function resolveLocalChatOptions(
  options: LocalLanguageModelOptions,
): ResolvedLocalChatOptions {
  const modelPath = typeof options.modelPath === "string" ? options.modelPath.trim() : "";
  if (!modelPath) {
    throw invalid(
      "modelPath is not set",
      "set llm.providers.local.modelPath (or ENGRAM_LLM_LOCAL_MODEL_PATH) to a GGUF chat model file",
    );
  }
  if (modelPath.startsWith("hf:")) {
    throw invalid(
      "modelPath must be a file for the language model (hf: URIs are not downloaded for it)",
      "download the GGUF file and set its path",
    );
  }
  const gpu = options.gpu ?? "auto";
  if (!LOCAL_GPU_VALUES.includes(gpu)) {
    throw invalid(`gpu must be one of ${LOCAL_GPU_VALUES.join(", ")}, got ${JSON.stringify(gpu)}`);
  }
  return {
    modelPath: expandPath(modelPath),
    gpu,
    threads: count("threads", options.threads),
    contextSize: count("contextSize", options.contextSize),
    maxTokens: count("maxTokens", options.maxTokens) ?? LOCAL_CHAT_DEFAULTS.maxTokens,
    loadTimeoutMs:
      count("loadTimeoutMs", options.loadTimeoutMs) ?? LOCAL_CHAT_DEFAULTS.loadTimeoutMs,
  };
}

/** Provider settings → {@link LocalLanguageModelOptions} (types checked by core already). */
export function chatOptionsFromSettings(settings: ProviderSettings): LocalLanguageModelOptions {
  const options: Record<string, unknown> = {};
  for (const name of Object.keys(localLlmSettings)) {
    if (settings[name] !== undefined) options[name] = settings[name];
  }
  return { modelPath: "", ...options } as LocalLanguageModelOptions;
}

function count(key: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) {
    throw invalid(`${key} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function invalid(problem: string, hint?: string): EngramError {
  const key = `llm.providers.${PROVIDER_ID}`;
  return new EngramError("CONFIG_INVALID", `${key}.${problem}`, {
    hint: hint ?? `fix ${key} in engram.config.json (or its ENGRAM_LLM_LOCAL_* variable)`,
  });
}
