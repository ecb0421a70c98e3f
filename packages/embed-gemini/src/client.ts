import type { GoogleGenAI } from "@google/genai";

/** What a client needs: the settings embeddings and generation share. */
export interface GeminiClientOptions {
  apiKey: string;
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * A `GoogleGenAI` client for the Gemini Developer API, the SDK loaded here (not at the top: the
 * CLI imports every provider descriptor to auto-select). Everything is passed explicitly, so
 * `GOOGLE_GENAI_USE_VERTEXAI` and the SDK's own key and base-URL variables are ignored; no
 * `retryOptions`, so the SDK makes exactly one attempt (core retries).
 */
export async function createGeminiClient(options: GeminiClientOptions): Promise<GoogleGenAI> {
  const { GoogleGenAI } = await import("@google/genai");
  return new GoogleGenAI({
    vertexai: false,
    apiKey: options.apiKey,
    httpOptions: {
      baseUrl: options.baseUrl,
      headers: options.headers,
      timeout: options.timeoutMs,
    },
  });
}
