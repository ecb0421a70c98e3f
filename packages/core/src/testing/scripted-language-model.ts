import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "../model/language-model.js";
import { estimateInputTokens } from "../model/usage.js";
import { estimateTokens } from "../text/tokens.js";

/** One scripted answer: a text, a value (sent as its JSON), a full reply, or an error to throw. */
export type ScriptedAnswer =
  | string
  | Error
  | {
      text?: string;
      /** Answered as `JSON.stringify(value)` (core parses and checks it against the schema). */
      value?: unknown;
      /** Usage to report; default engram's estimate; `null`: report none. */
      usage?: TokenUsage | null;
      finishReason?: string;
    };

/** Options of {@link createScriptedLanguageModel}. */
export interface ScriptedLanguageModelOptions {
  id?: string;
  model?: string;
  endpoint?: string;
  contextTokens?: number;
  /**
   * The answers, in order (the last one repeats), or a function of the request and the call's
   * number (0-based) — how a test plays the model.
   */
  script:
    | readonly ScriptedAnswer[]
    | ((request: GenerateRequest, call: number) => ScriptedAnswer | Promise<ScriptedAnswer>);
}

/** A {@link createScriptedLanguageModel} model, with the requests it received. */
export interface ScriptedLanguageModel extends LanguageModel {
  /** Every request, in order. */
  readonly requests: GenerateRequest[];
}

/**
 * A language model that answers from a script, for tests of code built on the
 * {@link LanguageModel} contract (consolidation, the chain, budgets) without any provider. It
 * behaves like a driver: one attempt per call, errors thrown as scripted (use `ModelError` for
 * classified provider failures), usage reported (engram's estimate unless scripted). The real
 * drivers' wire formats are tested in their own packages.
 */
export function createScriptedLanguageModel(
  options: ScriptedLanguageModelOptions,
): ScriptedLanguageModel {
  const requests: GenerateRequest[] = [];
  const { script } = options;
  return {
    id: options.id ?? "scripted",
    model: options.model ?? "scripted-model",
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.contextTokens ? { contextTokens: options.contextTokens } : {}),
    requests,
    async generate<T>(request: GenerateRequest): Promise<GenerateResult<T>> {
      const n = requests.length;
      requests.push(request);
      request.signal?.throwIfAborted();
      const answer =
        typeof script === "function"
          ? await script(request, n)
          : (script[Math.min(n, script.length - 1)] ?? "");
      if (answer instanceof Error) throw answer;
      const reply = typeof answer === "string" ? { text: answer } : answer;
      const text = reply.text ?? (reply.value !== undefined ? JSON.stringify(reply.value) : "");
      const usage =
        reply.usage === undefined
          ? { inputTokens: estimateInputTokens(request), outputTokens: estimateTokens(text) }
          : reply.usage;
      return {
        text,
        ...(usage ? { usage } : {}),
        finishReason: reply.finishReason ?? "stop",
        model: options.model ?? "scripted-model",
      } as GenerateResult<T>;
    },
  };
}
