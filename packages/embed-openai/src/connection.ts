import type { EmbeddingError, ProviderError, ProviderService } from "@engram/core/driver";
import type OpenAI from "openai";
import type { ParsedBaseUrl } from "./base-url.js";
import { callOnce } from "./call.js";
import { type Sdk, toProviderError } from "./errors.js";
import type { ResolvedOptions } from "./options.js";
import { readEmbeddingList } from "./vectors.js";

/**
 * The key sent to servers that need none (Ollama, LM Studio, vLLM without `--api-key`): the SDK
 * refuses to run without one.
 */
export const PLACEHOLDER_API_KEY = "engram-no-key";

/** The JSON body of one embeddings request, as sent directly and as a Batch API line. */
export interface EmbeddingRequestBody {
  model: string;
  input: string[];
  encoding_format: "base64";
  dimensions?: number;
}

/** An SDK client with engram's settings, and single-attempt requests through it. */
export interface Connection {
  readonly sdk: Sdk;
  readonly client: OpenAI;
  readonly options: ResolvedOptions;
  /**
   * Run one SDK request once (see {@link callOnce}), bounded by `timeoutMs` (default the
   * `timeoutMs` setting) and classified into an {@link EmbeddingError}.
   */
  call<T>(
    what: string,
    run: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<T>;
  /** The body of an embeddings request for `texts`. */
  body(texts: readonly string[]): EmbeddingRequestBody;
  /** One `POST /embeddings` request; vectors validated (`dims` undefined: any shared size). */
  embed(
    texts: readonly string[],
    dims: number | undefined,
    signal?: AbortSignal,
  ): Promise<Float32Array[]>;
}

/** What an SDK client needs: the settings embeddings and chat share. */
export interface ClientOptions {
  apiKey: string | undefined;
  baseUrl: ParsedBaseUrl;
  organization: string | undefined;
  project: string | undefined;
  timeoutMs: number;
  headers: Record<string, string>;
}

/**
 * Load the SDK (lazily: loading the provider descriptor stays cheap) and create a client with SDK
 * retries off (`maxRetries: 0`: core retries), the timeout, base URL, query and headers. Options
 * the SDK would otherwise read from the environment (`OPENAI_BASE_URL`, `OPENAI_ORG_ID`, …) are
 * always passed explicitly, so the settings alone decide where requests go. `classify` turns a
 * failed request into an `EmbeddingError` (or, for `service: "model"`, a `ModelError`).
 */
export async function createClient(
  options: ClientOptions,
  service: ProviderService = "embedding",
): Promise<{ sdk: Sdk; client: OpenAI; classify: (error: unknown) => ProviderError }> {
  const sdk = await import("openai");
  const client = new sdk.OpenAI({
    apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: options.baseUrl.sdkBaseUrl,
    organization: options.organization ?? null,
    project: options.project ?? null,
    maxRetries: 0,
    timeout: options.timeoutMs,
    defaultHeaders: options.headers,
    ...(options.baseUrl.query ? { defaultQuery: options.baseUrl.query } : {}),
  });
  const context = {
    sdk,
    secrets: options.apiKey ? [options.apiKey] : [],
    endpoint: options.baseUrl.endpoint,
    service,
  };
  return { sdk, client, classify: (error: unknown) => toProviderError(error, context) };
}

/** A client for embedding requests (see {@link createClient}), and single attempts through it. */
export async function connect(options: ResolvedOptions): Promise<Connection> {
  const { sdk, client, classify } = await createClient(options);
  const connection: Connection = {
    sdk,
    client,
    options,
    call: (what, run, signal, timeoutMs = options.timeoutMs) =>
      callOnce(run, {
        what,
        signal,
        timeoutMs,
        classify: classify as (e: unknown) => EmbeddingError,
      }),
    body: (texts) => ({
      model: options.model,
      input: [...texts],
      encoding_format: "base64",
      ...(options.dimensions !== undefined ? { dimensions: options.dimensions } : {}),
    }),
    embed: (texts, dims, signal) =>
      connection.call(
        "POST /embeddings",
        async (s) => {
          // encoding_format is passed explicitly, so the SDK hands back the raw body and engram
          // decodes it: the SDK's own decoder garbles servers that answer with number arrays.
          const body: unknown = await client.embeddings.create(connection.body(texts), {
            signal: s,
          });
          return readEmbeddingList(body, texts.length, dims);
        },
        signal,
      ),
  };
  return connection;
}
