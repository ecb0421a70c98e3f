import type { Embedder } from "@engram/core/driver";
import { EmbeddingError } from "@engram/core/driver";
import type { GoogleGenAI } from "@google/genai";
import { createGeminiClient } from "./client.js";
import { classifyFailure, transportFailure } from "./errors.js";
import {
  type GeminiEmbedderOptions,
  type ResolvedGeminiOptions,
  resolveGeminiOptions,
  withConventionalEnv,
} from "./options.js";
import { GEMINI_PROVIDER_ID } from "./settings.js";
import { type AttemptRecord, recordingFetch } from "./transport.js";
import { unitVectors } from "./vectors.js";

/**
 * An {@link Embedder} for Google's Gemini embeddings (`gemini-embedding-001` by default) through
 * the official `@google/genai` SDK. Options left unset fall back to `GEMINI_API_KEY` (then
 * `GOOGLE_API_KEY`) and `GOOGLE_GEMINI_BASE_URL`.
 *
 * Each call is one `models/{model}:batchEmbedContents` request, made once: core batches, retries,
 * and falls back. Failures are {@link EmbeddingError}s; vectors are L2-normalised.
 *
 * @example
 * const embedder = await geminiEmbedder({ outputDimensionality: 768 });
 * const [vector] = await embedder.embedBatch(["Deploys run on GitHub Actions."]);
 *
 * @throws EmbeddingError `auth` when there is no API key.
 * @throws EngramError `CONFIG_INVALID` for an option the API would refuse.
 */
export async function geminiEmbedder(options: GeminiEmbedderOptions = {}): Promise<Embedder> {
  return createGeminiEmbedder(withConventionalEnv(options, process.env));
}

/**
 * {@link geminiEmbedder} without reading the environment: the provider descriptor uses it with
 * settings core already resolved.
 */
export async function createGeminiEmbedder(options: GeminiEmbedderOptions): Promise<Embedder> {
  const resolved = resolveGeminiOptions(options);
  return new GeminiEmbedder(await createGeminiClient(resolved), resolved);
}

class GeminiEmbedder implements Embedder {
  readonly id = GEMINI_PROVIDER_ID;
  readonly model: string;
  readonly dims: number;
  readonly endpoint: string;
  readonly maxBatchSize: number;
  readonly maxTokensPerRequest: number;
  readonly maxConcurrency: number;
  readonly #ai: GoogleGenAI;
  readonly #options: ResolvedGeminiOptions;

  constructor(ai: GoogleGenAI, options: ResolvedGeminiOptions) {
    this.#ai = ai;
    this.#options = options;
    this.model = options.model;
    this.dims = options.dims;
    this.endpoint = options.baseUrl;
    this.maxBatchSize = options.maxBatchSize;
    this.maxTokensPerRequest = options.maxTokensPerRequest;
    this.maxConcurrency = options.concurrency;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.#embed([text], this.#options.queryTaskType, signal);
    return vector as Float32Array;
  }

  async embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.#embed(texts, this.#options.taskType, signal);
  }

  async #embed(
    texts: readonly string[],
    taskType: string,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    if (texts.length > this.maxBatchSize) {
      throw new EmbeddingError(
        "bad_input",
        this.id,
        `${texts.length} texts in one call; this embedder takes at most ${this.maxBatchSize}`,
        { hint: "split the texts into batches of maxBatchSize (core does this)" },
      );
    }
    const { outputDimensionality } = this.#options;
    // A signal of our own per call: the SDK never removes its listener from the signal it is
    // given, which would pile listeners onto a caller's long-lived signal.
    const call = new AbortController();
    const forward = () => call.abort(signal?.reason);
    signal?.addEventListener("abort", forward, { once: true });
    const record: AttemptRecord = {};
    try {
      const response = await this.#ai.models.embedContent({
        model: this.model,
        // Content objects (not strings): one embedding per text for every model family.
        contents: texts.map((text) => ({ parts: [{ text }] })),
        config: {
          taskType,
          ...(outputDimensionality !== undefined ? { outputDimensionality } : {}),
          abortSignal: call.signal,
          httpOptions: {
            fetch: recordingFetch(record, (error, attemptSignal) =>
              transportFailure(error, {
                endpoint: this.endpoint,
                timeoutMs: this.#options.timeoutMs,
                attemptSignal,
                signal,
              }),
            ),
          },
        },
      });
      return unitVectors(response.embeddings, texts.length, this.dims);
    } catch (error) {
      throw classifyFailure(error, {
        endpoint: this.endpoint,
        apiKey: this.#options.apiKey,
        record,
        signal,
      });
    } finally {
      signal?.removeEventListener("abort", forward);
    }
  }
}
