import type { GenerateRequest, GenerateResult, LanguageModel } from "../model/language-model.js";
import { estimateTokens } from "../text/tokens.js";

/** What a script answers: the value (for a request with a schema) or the text. */
export type ModelScript = (request: GenerateRequest, call: number) => unknown | Promise<unknown>;

/**
 * A {@link LanguageModel} that answers from a script, for tests and examples that cannot call a
 * real model: `script(request, call)` returns the answer (a value, returned parsed and as JSON
 * text, for a request with a schema; else text). Token usage is counted with core's estimator
 * (`estimateTokens`: ~4 characters per token, 1 per CJK character) over the system prompt and
 * messages sent and the text returned, so budgets and reports see realistic figures.
 *
 * @example
 * ```ts
 * const model = new ScriptedLanguageModel(() => ({ operations: [] }));
 * ```
 */
export class ScriptedLanguageModel implements LanguageModel {
  readonly id = "scripted";
  readonly model: string;
  readonly contextTokens: number | undefined;
  /** Every request received, in order. */
  readonly requests: GenerateRequest[] = [];
  readonly #script: ModelScript;

  constructor(script: ModelScript, options: { model?: string; contextTokens?: number } = {}) {
    this.#script = script;
    this.model = options.model ?? "script";
    this.contextTokens = options.contextTokens;
  }

  async generate<T = unknown>(request: GenerateRequest): Promise<GenerateResult<T>> {
    this.requests.push(request);
    const answer = await this.#script(request, this.requests.length);
    const text = typeof answer === "string" ? answer : JSON.stringify(answer);
    const inputTokens =
      estimateTokens(request.system ?? "") +
      request.messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
    return {
      text,
      ...(request.schema
        ? { value: (typeof answer === "string" ? JSON.parse(answer) : answer) as T }
        : {}),
      usage: { inputTokens, outputTokens: estimateTokens(text) },
      finishReason: "stop",
      model: this.model,
    };
  }
}
