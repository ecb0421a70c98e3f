import { EngramError } from "@engram/core/driver";
import { DEFAULT_BASE_URL } from "./settings.js";

/** A base URL split into what the SDK needs and what the index identity may show. */
export interface ParsedBaseUrl {
  /** Origin and path, no query, no trailing slash: what the SDK appends `/embeddings` to. */
  sdkBaseUrl: string;
  /** The base URL's query parameters (e.g. a proxy's `api-version`), sent with every request. */
  query: Record<string, string> | undefined;
  /** The identity's `endpoint`: the base URL without credentials, query or fragment. */
  endpoint: string;
  /** True for OpenAI's own API (`api.openai.com`), which needs a key. */
  isOpenAI: boolean;
}

/**
 * Parse the `baseUrl` setting (default `https://api.openai.com/v1`). The SDK joins paths onto the
 * base URL as a string, so a query in the base URL is moved into the SDK's `defaultQuery`.
 *
 * @throws EngramError `CONFIG_INVALID` for something that is not an http(s) URL, or a URL with
 *   credentials in it (fetch refuses those; and they would end up in logs).
 */
export function parseBaseUrl(raw: string | undefined): ParsedBaseUrl {
  const text = raw?.trim() || DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`is not a URL: ${redactUrlText(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid(`must be an http(s) URL, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw invalid("must not contain credentials", {
      hint: 'remove user:password@ from embedding.providers.openai.baseUrl and send them with "headers" (or "apiKey")',
    });
  }
  const query = url.search ? Object.fromEntries(url.searchParams) : undefined;
  const sdkBaseUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, "");
  return {
    sdkBaseUrl,
    query,
    endpoint: sdkBaseUrl,
    isOpenAI: url.hostname.toLowerCase() === "api.openai.com",
  };
}

/** A URL-ish string with anything between `//` and `@` masked, for error messages. */
function redactUrlText(text: string): string {
  return text.replace(/\/\/[^/@]*@/, "//***@").replace(/\?.*$/, "?…");
}

function invalid(problem: string, options: { hint?: string } = {}): EngramError {
  return new EngramError("CONFIG_INVALID", `openai: baseUrl ${problem}`, {
    hint:
      options.hint ??
      "set embedding.providers.openai.baseUrl (or ENGRAM_OPENAI_BASE_URL) to e.g. https://api.openai.com/v1 or http://localhost:11434/v1",
  });
}
