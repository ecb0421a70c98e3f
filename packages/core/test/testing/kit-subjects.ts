import type { ProviderService } from "../../src/embedding/errors.js";
import {
  type Embedder,
  EmbeddingError,
  embeddingErrorFromHttp,
} from "../../src/embedding/index.js";
import { unitVector } from "../../src/embedding/vectors.js";
import { ModelError, modelErrorFromHttp } from "../../src/model/errors.js";
import type { GenerateRequest, LanguageModel } from "../../src/model/language-model.js";
import type { Reranker } from "../../src/model/reranker.js";
import { generateResult } from "../../src/model/structured-output.js";
import { createHashingEmbedder } from "../../src/testing/hashing-embedder.js";
import type { ProviderTestHooks } from "../../src/testing/provider-conformance.js";
import { schemaExample } from "../../src/testing/schema-example.js";
import { estimateTokens } from "../../src/text/tokens.js";

/**
 * Subjects for the provider kits' own tests: in-process providers over a backend that counts
 * calls and fails the next one as told, built the way drivers are (core's HTTP classification,
 * `unitVector`, `generateResult`). Not stand-ins for any real provider: what they prove is that
 * the kits pass a provider that keeps the contract and fail one that breaks it.
 */

export const SECRET = "sk-kit-0123456789abcdefghijklmnop";

/** The backend: counts requests and plays the failure armed for the next one. */
export class Backend {
  requests = 0;
  #next: string[] = [];

  hooks<F extends string>(failures: readonly F[]): ProviderTestHooks<F> {
    return {
      secrets: [SECRET],
      requests: () => this.requests,
      failNext: Object.fromEntries(
        failures.map((f) => [
          f,
          () => {
            this.#next.push(f);
          },
        ]),
      ) as ProviderTestHooks<F>["failNext"],
    };
  }

  /** One request: the armed failure (thrown, or a stall until the signal or `timeoutMs` ends it). */
  async request(
    service: ProviderService,
    signal: AbortSignal | undefined,
    timeoutMs = Number.POSITIVE_INFINITY,
  ): Promise<string | undefined> {
    signal?.throwIfAborted();
    this.requests++;
    const failure = this.#next.shift();
    const http = service === "model" ? modelErrorFromHttp : embeddingErrorFromHttp;
    const status = { rate_limit: 429, auth: 401, server: 500 }[failure ?? ""];
    if (status) throw http({ provider: "kit", status, message: "the backend says no" });
    const Failed = service === "model" ? ModelError : EmbeddingError;
    if (failure === "malformed") {
      throw new Failed("bad_response", "kit", "the answer is not in the wire format");
    }
    if (failure === "slow") {
      await new Promise<void>((_, reject) => {
        const timer = Number.isFinite(timeoutMs)
          ? setTimeout(() => {
              reject(new Failed("timeout", "kit", `no answer within ${timeoutMs} ms`));
            }, timeoutMs)
          : undefined;
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    }
    return failure;
  }
}

/** An embedder over the hashing embedder, behind `backend`. */
export function kitEmbedder(backend: Backend, timeoutMs?: number): Embedder {
  const hashing = createHashingEmbedder({ dims: 64 });
  const embed = async (texts: readonly string[], signal?: AbortSignal) => {
    if (!texts.length) return [];
    const failure = await backend.request("embedding", signal, timeoutMs);
    const vectors = await hashing.embedBatch(texts);
    return failure === "nan_vector"
      ? vectors.map((v, i) => unitVector([Number.NaN, ...v.slice(1)], "kit", i))
      : vectors;
  };
  return {
    id: "kit",
    model: "hashing-64",
    dims: 64,
    endpoint: "http://127.0.0.1:9/v1",
    maxBatchSize: 16,
    embedQuery: async (text, signal) => (await embed([text], signal))[0] as Float32Array,
    embedBatch: embed,
  };
}

/** A reranker scoring by the cosine of hashing vectors, behind `backend`. */
export function kitReranker(backend: Backend): Reranker {
  const hashing = createHashingEmbedder({ dims: 256 });
  return {
    id: "kit",
    model: "cosine-256",
    async rerank(query, documents, options = {}) {
      if (!documents.length) return [];
      const failure = await backend.request("embedding", options.signal);
      const [q, ...docs] = await hashing.embedBatch([query, ...documents]);
      const scores = docs.map((d) => d.reduce((s, x, i) => s + x * (q?.[i] ?? 0), 0));
      if (failure === "nan_score") {
        throw new EmbeddingError("bad_response", "kit", "document 0 has no numeric score");
      }
      return scores;
    },
  };
}

/**
 * A language model behind `backend` that answers an example of the requested schema, or an echo,
 * cut at `maxTokens` as an API cuts it.
 */
export function kitLanguageModel(backend: Backend, timeoutMs?: number): LanguageModel {
  return {
    id: "kit",
    model: "echo-1",
    contextTokens: 4096,
    async generate<T>(request: GenerateRequest) {
      const failure = await backend.request("model", request.signal, timeoutMs);
      const last = request.messages.at(-1)?.content ?? "";
      let text =
        failure === "not_json"
          ? "Sure! Here it is: 用户偏好深色模式"
          : failure === "schema_violation"
            ? "{}"
            : request.schema
              ? JSON.stringify(schemaExample(request.schema))
              : `You said: ${last}`;
      let finishReason = "stop";
      if (request.maxTokens !== undefined && estimateTokens(text) > request.maxTokens) {
        text = text.slice(0, request.maxTokens * 4);
        finishReason = "length";
      }
      const usage = {
        inputTokens: estimateTokens(request.messages.map((m) => m.content).join("\n")),
        outputTokens: estimateTokens(text),
      };
      return generateResult<T>(request, {
        provider: "kit",
        text,
        usage,
        finishReason,
        model: "echo-1",
      });
    },
  };
}
