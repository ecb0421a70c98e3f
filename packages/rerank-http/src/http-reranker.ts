import {
  EmbeddingError,
  EngramError,
  embeddingErrorFromHttp,
  type Reranker,
} from "@engram/core/driver";
import { type HttpRerankerOptions, PROVIDER_ID, type RerankApi } from "./settings.js";

/**
 * A {@link Reranker} over HTTP: one `POST {baseUrl}{path}` per call (no retries: search runs it
 * under a deadline and keeps the fused order when it fails). The answer's scores are put back in
 * the order the documents were sent, whatever order the server lists them in.
 *
 * Failures are classified provider errors: HTTP status → auth / rate_limit / bad_input / server
 * (as for embeddings), an unreachable server → `network`, an abort → `timeout`, a body that is
 * not one score per document → `bad_response`.
 *
 * @throws EngramError `CONFIG_INVALID` when `baseUrl` is not an http(s) URL or `api` is unknown.
 */
export function httpReranker(options: HttpRerankerOptions): Reranker {
  const base = parseBase(options.baseUrl);
  const api: RerankApi = options.api ?? "cohere";
  if (api !== "cohere" && api !== "tei") {
    throw new EngramError("CONFIG_INVALID", `rerank api "${String(api)}" is unknown`, {
      hint: 'set search.rerank.providers.http.api to "cohere" or "tei"',
    });
  }
  const path = options.path ?? "/v1/rerank";
  const url = new URL(
    `${base.pathname.replace(/\/$/, "")}${path.startsWith("/") ? path : `/${path}`}`,
    base,
  );
  const model = options.model ?? "";
  return {
    id: PROVIDER_ID,
    model: model || "(server default)",
    endpoint: url.href,
    maxDocuments: options.maxDocuments ?? 100,
    async rerank(query, documents, callOptions = {}) {
      if (!documents.length) return [];
      const body =
        api === "tei"
          ? { query, texts: documents, raw_scores: false }
          : { ...(model ? { model } : {}), query, documents, return_documents: false };
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
            ...options.headers,
          },
          body: JSON.stringify(body),
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        });
      } catch (cause) {
        const aborted = callOptions.signal?.aborted;
        throw new EmbeddingError(
          aborted ? "timeout" : "network",
          PROVIDER_ID,
          aborted
            ? `the rerank request to ${url.host} was aborted`
            : `cannot reach ${url.host}: ${(cause as Error).message}`,
          { cause },
        );
      }
      const text = await response.text();
      if (!response.ok) {
        throw embeddingErrorFromHttp({
          provider: PROVIDER_ID,
          status: response.status,
          message: errorMessage(text),
          headers: response.headers,
        });
      }
      return scoresFrom(text, documents.length);
    },
  };
}

/**
 * One score per document, in the order sent, from any of the shared answer shapes:
 * `{ results | data: [{ index, relevance_score | score }] }` or a bare `[{ index, score }]`.
 */
export function scoresFrom(text: string, count: number): number[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badResponse(`the answer is not JSON: ${text.slice(0, 120)}`);
  }
  const record = parsed as { results?: unknown; data?: unknown };
  const items = Array.isArray(parsed) ? parsed : (record?.results ?? record?.data);
  if (!Array.isArray(items)) throw badResponse("the answer has no results list");
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const item of items) {
    const { index, relevance_score, score } = (item ?? {}) as Record<string, unknown>;
    const value = typeof relevance_score === "number" ? relevance_score : score;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count) {
      throw badResponse(`a result names document ${String(index)} of ${count}`);
    }
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw badResponse(`document ${String(index)} has no numeric score`);
    }
    scores[index as number] = value;
  }
  const missing = scores.indexOf(undefined);
  if (missing >= 0) throw badResponse(`document ${missing} of ${count} has no score`);
  return scores as number[];
}

function badResponse(message: string): EmbeddingError {
  return new EmbeddingError("bad_response", PROVIDER_ID, message);
}

/** The server's error message: `message`, `detail`, `error` (string or `{ message }`), or the text. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error as { message?: unknown } | string | undefined;
    const found =
      body.message ?? body.detail ?? (typeof error === "string" ? error : error?.message);
    if (typeof found === "string") return found;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}

function parseBase(baseUrl: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new EngramError("CONFIG_INVALID", `rerank baseUrl "${baseUrl}" is not an http(s) URL`, {
      hint: "set search.rerank.providers.http.baseUrl (or ENGRAM_RERANK_HTTP_BASE_URL), e.g. http://localhost:8080",
    });
  }
  return url;
}
