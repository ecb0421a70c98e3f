import type { ProviderSetting } from "@engram/core/driver";

/** The provider id: `search.rerank.provider: "http"`, `ENGRAM_RERANK_HTTP_*` variables. */
export const PROVIDER_ID = "http";

/** Request and response shapes the driver speaks. */
export type RerankApi = "cohere" | "tei";

/** Options of {@link httpReranker} (the same names as the provider settings). */
export interface HttpRerankerOptions {
  /** The server's base URL, e.g. `https://api.cohere.com`, `http://localhost:8080`. */
  baseUrl: string;
  /** The reranking model the server should use (servers with one model may ignore it). */
  model?: string | undefined;
  /** Sent as `Authorization: Bearer <apiKey>`; optional for local servers. */
  apiKey?: string | undefined;
  /** The endpoint path (default `/v1/rerank`; TEI and Infinity also answer `/rerank`). */
  path?: string | undefined;
  /**
   * `cohere` (default): `{ model, query, documents }` → `{ results: [{ index, relevance_score }] }`,
   * which Cohere, Jina, vLLM, Infinity and llama.cpp's server speak, and Voyage with `data` for
   * `results`. `tei`: Hugging Face TEI's `{ query, texts }` → `[{ index, score }]`.
   */
  api?: RerankApi | undefined;
  /** Most documents per request (default 100). */
  maxDocuments?: number | undefined;
  /** Extra request headers (e.g. a gateway's). */
  headers?: Record<string, string> | undefined;
}

/** The provider settings (`search.rerank.providers.http` / `ENGRAM_RERANK_HTTP_<SETTING>`). */
export const httpRerankSettings: Readonly<Record<keyof HttpRerankerOptions, ProviderSetting>> = {
  baseUrl: {
    type: "string",
    description:
      "the rerank server's base URL, e.g. https://api.cohere.com or http://localhost:8080",
  },
  model: {
    type: "string",
    description: "the reranking model, e.g. rerank-v3.5, jina-reranker-v2-base-multilingual",
  },
  apiKey: {
    type: "string",
    secret: true,
    env: ["COHERE_API_KEY", "JINA_API_KEY", "VOYAGE_API_KEY"],
    description: "API key, sent as a Bearer token (local servers need none)",
  },
  path: { type: "string", description: "endpoint path (default /v1/rerank)" },
  api: {
    type: "string",
    description: "cohere (default: Cohere, Jina, Voyage, vLLM, Infinity, llama.cpp) or tei",
  },
  maxDocuments: { type: "number", description: "most documents per request (default 100)" },
  headers: { type: "json", description: "extra request headers as a JSON object" },
};
