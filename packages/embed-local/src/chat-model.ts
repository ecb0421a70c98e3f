import { basename } from "node:path";
import {
  type GenerateRequest,
  type GenerateResult,
  generateResult,
  type LanguageModel,
} from "@engram/core/driver";
import type { ChatHistoryItem, LlamaChatSession } from "node-llama-cpp";
import { asModelError, closedModelError, localModelError } from "./chat-errors.js";
import { ChatModelLoader, type LoadedChatModel } from "./chat-loader.js";
import {
  LOCAL_CHAT_DEFAULTS,
  type LocalLanguageModelOptions,
  resolveLocalChatOptions,
} from "./chat-settings.js";
import { messageOf, PROVIDER_ID } from "./errors.js";
import { readModelHeader } from "./gguf-header.js";
import { GrammarCache } from "./json-grammar.js";
import { importNodeLlamaCpp } from "./sdk.js";

/** A {@link LanguageModel} running a GGUF chat model in-process, with what it knows of its model. */
export interface LocalLanguageModel extends LanguageModel {
  /** The GGUF file. */
  readonly path: string;
  /** `general.architecture`, e.g. `llama`, `qwen3`. */
  readonly architecture: string;
  /** The context size calls run in (prompt and answer together). */
  readonly contextTokens: number;
  /** True once the weights are loaded (the first call loads them). */
  readonly loaded: boolean;
  /** How many times loading the weights started: 0 until the first call, then 1. */
  readonly loads: number;
  /** Free the model and its context; later calls reject with `CLOSED`. */
  close(): Promise<void>;
}

/** Architectures that only embed (encoders): they cannot answer. */
const ENCODERS = /bert|^t5encoder$|^jina-bert|^nomic-bert/;

/**
 * A language model for a local GGUF chat model through node-llama-cpp. Creating it reads the GGUF
 * header only (and refuses a missing or damaged file, or an embedding-only model); the weights
 * load on the first call, once, within `loadTimeoutMs`. Calls take turns on one context sequence
 * (the prompt prefix they share is evaluated once). The conversation is rendered with the model's
 * own chat template (node-llama-cpp resolves it from the GGUF, e.g. ChatML).
 *
 * With a schema, generation runs under `llama.createGrammarForJsonSchema(schema)`: the sampler can
 * only pick tokens that keep the answer valid JSON for the schema, so even a small model answers
 * parseable, matching JSON. Usage is the context sequence's token meter (tokens evaluated and
 * generated). A prompt that does not fit the context with its `maxTokens` fails with `too_long`
 * instead of being cut.
 *
 * @throws EngramError `CONFIG_INVALID` for an invalid option; ModelError `bad_input` for a
 *   missing, non-GGUF, damaged or embedding-only model file.
 */
export async function localLanguageModel(
  options: LocalLanguageModelOptions,
): Promise<LocalLanguageModel> {
  const settings = resolveLocalChatOptions(options);
  const path = settings.modelPath;
  const header = await readModelHeader(path).catch((error: unknown) => {
    throw asModelError(error);
  });
  const name = basename(path);
  if (ENCODERS.test(header.architecture)) {
    throw localModelError(
      "bad_input",
      `${name} is a ${header.architecture} embedding model; it cannot generate text`,
      {
        hint: "set llm.providers.local.modelPath to a GGUF chat model (embedding.providers.local.modelPath is the embedding one)",
      },
    );
  }
  const train = header.contextLength;
  if (settings.contextSize && train && settings.contextSize > train) {
    throw localModelError(
      "bad_input",
      `contextSize ${settings.contextSize} exceeds the training context of ${name} (${train} tokens)`,
      { hint: `set llm.providers.local.contextSize to ${train} or less, or leave it unset` },
    );
  }
  const contextSize =
    settings.contextSize ??
    Math.min(train ?? LOCAL_CHAT_DEFAULTS.maxContextSize, LOCAL_CHAT_DEFAULTS.maxContextSize);
  const loader = new ChatModelLoader({
    path,
    model: name,
    gpu: settings.gpu,
    threads: settings.threads,
    contextSize,
    timeoutMs: settings.loadTimeoutMs,
  });
  const grammars = new GrammarCache();
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let loaded = false;

  const generate = <T>(request: GenerateRequest): Promise<GenerateResult<T>> => {
    if (closed) return Promise.reject(closedModelError(name));
    const turn = queue.then(async () => {
      request.signal?.throwIfAborted();
      if (closed) throw closedModelError(name);
      const model = await loader.load();
      loaded = true;
      return answer<T>(model, request, {
        name,
        contextSize,
        maxTokens: settings.maxTokens,
        grammars,
      });
    });
    queue = turn.catch(() => {});
    return turn;
  };

  return {
    id: PROVIDER_ID,
    model: name,
    endpoint: path,
    path,
    architecture: header.architecture,
    contextTokens: contextSize,
    get loaded() {
      return loaded && !closed;
    },
    get loads() {
      return loader.loads;
    },
    generate,
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await loader.dispose();
    },
  };
}

/** One call on the loaded model's sequence. */
async function answer<T>(
  loaded: LoadedChatModel,
  request: GenerateRequest,
  context: { name: string; contextSize: number; maxTokens: number; grammars: GrammarCache },
): Promise<GenerateResult<T>> {
  const last = request.messages.at(-1);
  if (last?.role !== "user") {
    throw localModelError("bad_input", "the conversation must end with a user message", {
      hint: "put the question last",
    });
  }
  const history: ChatHistoryItem[] = [
    ...(request.system ? [{ type: "system" as const, text: request.system }] : []),
    ...request.messages
      .slice(0, -1)
      .map(
        (m): ChatHistoryItem =>
          m.role === "user"
            ? { type: "user", text: m.content }
            : { type: "model", response: [m.content] },
      ),
  ];
  const { LlamaChatSession } = await importNodeLlamaCpp();
  const session: LlamaChatSession = new LlamaChatSession({
    contextSequence: loaded.sequence,
    autoDisposeSequence: false,
  });
  try {
    session.setChatHistory(history);
    const maxTokens = request.maxTokens ?? context.maxTokens;
    const promptTokens = session.chatWrapper
      .generateContextState({
        chatHistory: [
          ...history,
          { type: "user", text: last.content },
          { type: "model", response: [] },
        ],
      })
      .contextText.tokenize(loaded.model.tokenizer).length;
    if (promptTokens + maxTokens > context.contextSize) {
      throw localModelError(
        "too_long",
        `the prompt is ${promptTokens} tokens; with ${maxTokens} for the answer it does not fit ${context.name}'s ${context.contextSize}-token context`,
        {
          hint: "send less per call, ask for fewer tokens, or raise llm.providers.local.contextSize (up to the model's training context)",
        },
      );
    }
    const grammar = request.schema
      ? await context.grammars.get(loaded.llama, request.schema)
      : undefined;
    const before = loaded.sequence.tokenMeter.getState();
    let result: Awaited<ReturnType<LlamaChatSession["promptWithMeta"]>>;
    try {
      result = await session.promptWithMeta(last.content, {
        maxTokens,
        ...(grammar ? { grammar } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (cause) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw localModelError(
        "server",
        `${context.name} failed while generating: ${messageOf(cause)}`,
        {
          hint: "llama.cpp failed; engram retries; if it persists, check the model file and free memory",
          cause,
        },
      );
    }
    if (result.stopReason === "abort") throw request.signal?.reason ?? new Error("aborted");
    const used = loaded.sequence.tokenMeter.diff(before);
    const usage = { inputTokens: used.usedInputTokens, outputTokens: used.usedOutputTokens };
    const finishReason = result.stopReason === "maxTokens" ? "length" : "stop";
    return generateResult<T>(request, {
      provider: PROVIDER_ID,
      text: result.responseText,
      usage,
      finishReason,
      model: context.name,
    });
  } finally {
    session.dispose({ disposeSequence: false });
  }
}
