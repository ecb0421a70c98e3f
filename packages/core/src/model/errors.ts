import {
  classifyHttpFailure,
  type HttpFailure,
  ProviderError,
  type ProviderErrorOptions,
  type ProviderFailure,
  providerFailureOf,
} from "../embedding/errors.js";
import type { TokenUsage } from "./language-model.js";

/** Why a language-model call failed: the same kinds as embeddings ({@link ProviderFailure}). */
export type ModelFailure = ProviderFailure;

const HINTS: Record<ModelFailure, string> = {
  auth: "check the provider's API key (llm.providers.<id>.apiKey or its variable) and that it may use this model",
  quota:
    "the account's quota is used up: add credit or raise the limit; engram will not call it again until then",
  rate_limit:
    "engram retries after the delay the provider asks for; run fewer model calls at once if this persists",
  bad_input: "check llm.model and the provider's settings in engram.config.json",
  too_long:
    "the prompt exceeds the model's context window: send less per call, or use a model with a longer context",
  network: "check the base URL and the network; engram retries with backoff",
  timeout: "the model was too slow; raise the provider's timeoutMs or ask for fewer tokens",
  server:
    "the provider failed; engram retries with backoff and falls back if llm.fallback names another model",
  bad_response:
    "the model's answer was unreadable or did not match the schema; engram retries; a larger model, or a higher maxTokens when the answer was cut off, usually fixes it",
};

/**
 * A language-model call that failed, classified like an {@link EmbeddingError} (auth, quota,
 * rate_limit, bad_input, too_long = the context window is exceeded, network, timeout, server,
 * bad_response — an unreadable answer, or one that does not match the requested schema), with
 * codes `MODEL_AUTH` … `MODEL_BAD_RESPONSE`. Drivers throw these; core retries the retryable ones.
 */
export class ModelError extends ProviderError {
  /**
   * Tokens the failed call used, when the provider answered (an answer that did not parse): core
   * counts them against the run's budget and the provider's totals.
   */
  readonly usage: TokenUsage | undefined;
  /**
   * True when the answer stopped at the request's `maxTokens` before it was whole: the same
   * request would be cut off again, so core retries it with more tokens.
   */
  readonly cutOff: boolean;

  constructor(
    kind: ModelFailure,
    provider: string,
    message: string,
    options: ProviderErrorOptions & {
      usage?: TokenUsage | undefined;
      cutOff?: boolean | undefined;
    } = {},
  ) {
    super("model", kind, provider, message, { ...options, defaultHint: HINTS[kind] });
    this.usage = options.usage;
    this.cutOff = options.cutOff ?? false;
  }
}

/** True when `error` is a {@link ModelError} (by its `MODEL_*` code, from any copy of core). */
export function isModelError(error: unknown): error is ModelError {
  return providerFailureOf(error)?.service === "model";
}

/**
 * A failed HTTP response of a chat API as a {@link ModelError}: the same classification as
 * embeddings ({@link classifyHttpFailure}: 401/403 auth, 429 rate limit or quota, 408 timeout,
 * 413 or a "context length" 400 too_long, other 4xx bad input, 5xx server).
 */
export function modelErrorFromHttp(failure: HttpFailure): ModelError {
  const { kind, message, options } = classifyHttpFailure(failure);
  return new ModelError(kind, failure.provider, message, options);
}
