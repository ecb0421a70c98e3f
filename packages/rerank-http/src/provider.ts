import type { ProviderSettings, RerankerProvider } from "@engram/core/driver";
import { httpReranker } from "./http-reranker.js";
import { type HttpRerankerOptions, httpRerankSettings, PROVIDER_ID } from "./settings.js";

/**
 * The `http` reranker provider: any server that speaks the shared `/v1/rerank` shape. `check` is
 * ok once `baseUrl` is set and never calls the network.
 *
 * @example
 * ```json
 * {
 *   "search": {
 *     "rerank": {
 *       "provider": "http",
 *       "providers": { "http": { "baseUrl": "http://localhost:8080", "model": "bge-reranker-v2-m3" } }
 *     }
 *   }
 * }
 * ```
 */
export const httpRerankerProvider: RerankerProvider = {
  id: PROVIDER_ID,
  settings: httpRerankSettings,
  check: (settings) =>
    typeof settings.baseUrl === "string" && settings.baseUrl.trim() !== ""
      ? { ok: true }
      : { ok: false, reason: "no baseUrl is set (ENGRAM_RERANK_HTTP_BASE_URL)" },
  create: async (settings: ProviderSettings) =>
    httpReranker(settings as unknown as HttpRerankerOptions),
};
