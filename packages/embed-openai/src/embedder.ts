import type { Embedder } from "@engram/core/driver";
import { embedWithBatchApi } from "./batch-api.js";
import { type Connection, connect } from "./connection.js";
import { type OpenAIEmbedderOptions, resolveOptions } from "./options.js";
import { planRequests } from "./request-plan.js";
import { BATCH_MAX_TEXTS, PROVIDER_ID } from "./settings.js";

/** The text of the request that learns an unknown model's vector size. */
const PROBE_TEXT = "engram dimension probe";

/**
 * An {@link Embedder} for OpenAI's embeddings API and any OpenAI-compatible server (Ollama, vLLM,
 * LM Studio, LiteLLM, Azure-style proxies), through the official `openai` SDK.
 *
 * Every `embedBatch` / `embedQuery` call makes one attempt (the SDK's retries are off; core
 * retries) and throws classified `EmbeddingError`s; vectors come back validated and L2-normalised.
 *
 * The vector size is known without a request for OpenAI's models (`text-embedding-3-small` 1536,
 * `-3-large` 3072, `ada-002` 1536, or `dimensions` when set) and when `dims` is set. Otherwise
 * **this factory makes one probe request** (`POST /embeddings` with one short text) to learn it,
 * so a wrong base URL, key or model fails here, classified.
 *
 * With `batch: true`, calls of at least `batchMinTexts` texts go through OpenAI's Batch API (see
 * `embedWithBatchApi`); the embedder then asks core for calls of up to 50,000 texts, with no token
 * bound, and `batchConcurrency` calls in flight. Smaller calls are split into ordinary requests
 * (`maxBatchSize` texts, `maxTokensPerRequest` tokens, `concurrency` at once).
 *
 * @example
 * ```ts
 * const embedder = await openaiEmbedder({ apiKey: process.env.OPENAI_API_KEY });
 * const [vector] = await embedder.embedBatch(["Deploys run on GitHub Actions."]);
 * ```
 *
 * @throws EngramError `CONFIG_INVALID` for invalid options.
 * @throws EmbeddingError `auth` without a key for api.openai.com; `bad_input` for `batchWait:
 *   false`; whatever the probe request failed with.
 */
export async function openaiEmbedder(options: OpenAIEmbedderOptions = {}): Promise<Embedder> {
  const resolved = resolveOptions(options);
  const connection = await connect(resolved);
  const dims =
    resolved.dims ?? ((await connection.embed([PROBE_TEXT], undefined))[0]?.length as number);
  return new OpenAIEmbedder(connection, dims);
}

/** The embedder {@link openaiEmbedder} returns. */
class OpenAIEmbedder implements Embedder {
  readonly id = PROVIDER_ID;
  readonly model: string;
  readonly dims: number;
  readonly endpoint: string;
  readonly maxBatchSize: number;
  readonly maxTokensPerRequest: number | undefined;
  readonly maxConcurrency: number;
  readonly #connection: Connection;

  constructor(connection: Connection, dims: number) {
    const { options } = connection;
    this.#connection = connection;
    this.model = options.model;
    this.dims = dims;
    this.endpoint = options.baseUrl.endpoint;
    const batch = options.batch.enabled;
    this.maxBatchSize = batch ? BATCH_MAX_TEXTS : options.maxBatchSize;
    this.maxTokensPerRequest = batch ? undefined : options.maxTokensPerRequest;
    this.maxConcurrency = batch ? options.batch.concurrency : options.concurrency;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.#connection.embed([text], this.dims, signal);
    return vector as Float32Array;
  }

  async embedBatch(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const { options } = this.#connection;
    if (options.batch.enabled && texts.length >= options.batch.minTexts) {
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH_MAX_TEXTS) {
        const slice = texts.slice(start, start + BATCH_MAX_TEXTS);
        out.push(...(await embedWithBatchApi(this.#connection, slice, this.dims, signal)));
      }
      return out;
    }
    const ranges = planRequests(texts, options.maxBatchSize, options.maxTokensPerRequest);
    if (ranges.length === 1) return this.#connection.embed(texts, this.dims, signal);
    return this.#embedSplit(texts, ranges, signal);
  }

  /**
   * A call bigger than one request: its requests run `concurrency` at a time; the first failure
   * aborts the others and is thrown (core retries the whole call).
   */
  async #embedSplit(
    texts: readonly string[],
    ranges: ReturnType<typeof planRequests>,
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const out: Float32Array[] = new Array(texts.length);
    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async () => {
      while (!failure && next < ranges.length) {
        const range = ranges[next++] as (typeof ranges)[number];
        try {
          const vectors = await this.#connection.embed(
            texts.slice(range.start, range.end),
            this.dims,
            controller.signal,
          );
          for (const [j, vector] of vectors.entries()) out[range.start + j] = vector;
        } catch (error) {
          failure ??= { error };
          controller.abort(error);
        }
      }
    };
    try {
      const workers = Math.min(this.#connection.options.concurrency, ranges.length);
      await Promise.all(Array.from({ length: workers }, worker));
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
    if (signal?.aborted) throw signal.reason;
    if (failure) throw failure.error;
    return out;
  }
}
