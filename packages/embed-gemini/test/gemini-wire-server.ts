import { createHash } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerGenerateContent } from "./gemini-generate-wire.js";

/**
 * A local stand-in for the Gemini Developer API's `batchEmbedContents` (and `generateContent`,
 * answered by `gemini-generate-wire.ts`), speaking its REST wire format: `POST /v1beta/models/{model}:batchEmbedContents` with the key in `x-goog-api-key`, a body
 * `{"requests":[{"model":"models/…","content":{"parts":[{"text":…}]},"taskType":…,
 * "outputDimensionality":…}]}`, an answer `{"embeddings":[{"values":[…]}]}`, and errors as Google
 * sends them (`{"error":{"code","message","status","details"}}`, pretty-printed JSON).
 */
export interface GeminiWireServer {
  /** `http://127.0.0.1:<port>`: the SDK's `baseUrl`. */
  readonly url: string;
  /** The one key the server accepts. */
  readonly apiKey: string;
  /** Every request received, in order of arrival. */
  readonly requests: RecordedRequest[];
  /** Most requests that were in flight at once. */
  readonly maxInFlight: number;
  /** Delay before every answer the server computes itself (default 0). */
  latencyMs: number;
  /** Answer the next requests with these replies, in order; then the server embeds again. */
  queue(...replies: Array<WireReply | ((request: RecordedRequest) => WireReply)>): void;
  close(): Promise<void>;
}

/** One request as the server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1beta/models/gemini-embedding-001:batchEmbedContents`. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON (undefined when it is not JSON). */
  body: unknown;
}

/** How to answer one request. */
export interface WireReply {
  status: number;
  /** Sent as pretty-printed JSON, `content-type: application/json; charset=UTF-8`. */
  json?: unknown;
  /** Sent as is (with `headers` saying its type). */
  text?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the status line and half the body, then wait this long before the rest. */
  bodyDelayMs?: number;
  /** Close the connection instead of answering. */
  hangUp?: boolean;
}

/** Models the server knows, with their full vector size. */
export const WIRE_MODELS: Record<string, number> = {
  "gemini-embedding-001": 3072,
  "text-embedding-004": 768,
};

/** The headers Google's front end sends with a JSON answer. */
const GOOGLE_HEADERS = {
  "content-type": "application/json; charset=UTF-8",
  vary: "Origin, X-Origin, Referer",
  server: "scaffolding on HTTPServer2",
  "x-xss-protection": "0",
  "x-frame-options": "SAMEORIGIN",
  "x-content-type-options": "nosniff",
};

/** Start the server on a free local port. */
export async function startGeminiWireServer(
  apiKey = "AIzaSy-test-key-0123456789abcdefghijklm",
): Promise<GeminiWireServer> {
  const requests: RecordedRequest[] = [];
  const queued: Array<WireReply | ((request: RecordedRequest) => WireReply)> = [];
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let maxInFlight = 0;
  let latencyMs = 0;

  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const request: RecordedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
      };
      requests.push(request);
      const next = queued.shift();
      const reply = next
        ? typeof next === "function"
          ? next(request)
          : next
        : { delayMs: latencyMs, ...answerLikeGemini(request, raw, apiKey) };
      const send = () => {
        if (reply.hangUp) {
          req.socket.destroy();
          return;
        }
        write(res, reply, (timer) => timers.add(timer));
      };
      if (reply.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, reply.delayMs);
        timers.add(timer);
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    get latencyMs() {
      return latencyMs;
    },
    set latencyMs(ms: number) {
      latencyMs = ms;
    },
    queue(...replies) {
      queued.push(...replies);
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      return new Promise((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

function write(
  res: ServerResponse,
  reply: WireReply,
  track: (timer: NodeJS.Timeout) => void,
): void {
  const json = reply.json !== undefined;
  const body = json ? JSON.stringify(reply.json, null, 2) : (reply.text ?? "");
  res.writeHead(
    reply.status,
    json ? { ...GOOGLE_HEADERS, ...reply.headers } : (reply.headers ?? {}),
  );
  if (!reply.bodyDelayMs) {
    res.end(body);
    return;
  }
  const half = Math.floor(body.length / 2);
  res.write(body.slice(0, half));
  track(setTimeout(() => res.end(body.slice(half)), reply.bodyDelayMs));
}

/** What the real API answers: key check, model lookup, batch limit, then embeddings. */
function answerLikeGemini(request: RecordedRequest, raw: string, apiKey: string): WireReply {
  const url = new URL(request.url, "http://localhost");
  const match = /^\/v1beta\/models\/([^/:]+):(batchEmbedContents|generateContent)$/.exec(
    url.pathname,
  );
  if (request.method !== "POST" || !match) return notFoundPage();
  const key = request.headers["x-goog-api-key"] ?? url.searchParams.get("key");
  if (!key) return unregisteredCaller();
  if (key !== apiKey) return apiKeyInvalid();
  const model = match[1] as string;
  if (match[2] === "generateContent") return answerGenerateContent(request, model);
  const fullDims = WIRE_MODELS[model];
  if (fullDims === undefined) return modelNotFound(model);
  if (request.body === undefined) {
    return invalidArgument(
      `Invalid JSON payload received. Unexpected token.\n${raw.slice(0, 20)}\n^`,
    );
  }
  const batch = (request.body as { requests?: unknown }).requests;
  if (!Array.isArray(batch) || batch.length === 0) {
    return invalidArgument("* BatchEmbedContentsRequest.requests: contents is not specified\n");
  }
  if (batch.length > 100) {
    return invalidArgument(
      "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n",
    );
  }
  const embeddings = batch.map((item: WireEmbedRequest) => ({
    values: fakeValues(
      item.content?.parts?.map((part) => part.text ?? "").join("") ?? "",
      item.taskType ?? "TASK_TYPE_UNSPECIFIED",
      item.outputDimensionality ?? fullDims,
      fullDims,
    ),
  }));
  return { status: 200, json: { embeddings } };
}

/** One entry of `requests` in a `batchEmbedContents` body. */
export interface WireEmbedRequest {
  model?: string;
  content?: { role?: string; parts?: Array<{ text?: string }> };
  taskType?: string;
  outputDimensionality?: number;
}

/**
 * The values the server answers for a text: a deterministic unit vector of `fullDims` (depending
 * on text and task type, as real embeddings do), cut to `dims` from the end. Like
 * gemini-embedding-001, a cut vector is not normalised again.
 */
export function fakeValues(
  text: string,
  taskType: string,
  dims: number,
  fullDims = 3072,
): number[] {
  const full: number[] = [];
  for (let block = 0; full.length < fullDims; block++) {
    const digest = createHash("sha256").update(`${taskType}\n${text}\n${block}`).digest();
    for (let i = 0; i + 1 < digest.length && full.length < fullDims; i += 2) {
      full.push(digest.readInt16LE(i) / 32768);
    }
  }
  const norm = Math.sqrt(full.reduce((sum, x) => sum + x * x, 0));
  return full.slice(0, dims).map((x) => Number((x / norm).toPrecision(8)));
}

/** A Google error body: `{"error":{"code","message","status","details"?}}`. */
export function googleError(
  code: number,
  status: string,
  message: string,
  details?: unknown[],
  headers?: Record<string, string>,
): WireReply {
  return {
    status: code,
    json: { error: { code, message, status, ...(details ? { details } : {}) } },
    ...(headers ? { headers } : {}),
  };
}

const HELP = {
  "@type": "type.googleapis.com/google.rpc.Help",
  links: [
    {
      description: "Learn more about Gemini API quotas",
      url: "https://ai.google.dev/gemini-api/docs/rate-limits",
    },
  ],
};

function quotaExceeded(quotaId: string, limit: string, retryDelay: string): WireReply {
  return googleError(
    429,
    "RESOURCE_EXHAUSTED",
    "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. \n" +
      `* Quota exceeded for metric: generativelanguage.googleapis.com/embed_content_free_tier_requests, limit: ${limit}, model: gemini-embedding-1.0\n` +
      `Please retry in ${retryDelay.replace("s", "")}.384105706s.`,
    [
      HELP,
      {
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [
          {
            quotaMetric: "generativelanguage.googleapis.com/embed_content_free_tier_requests",
            quotaId,
            quotaDimensions: { model: "gemini-embedding-1.0", location: "global" },
            quotaValue: limit,
          },
        ],
      },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
    ],
  );
}

/** 429: the free tier's per-minute request limit (100 a minute), as Google sends it. */
export function perMinuteLimit(retryDelay = "33s"): WireReply {
  return quotaExceeded(
    "EmbedContentRequestsPerMinutePerUserPerProjectPerModel-FreeTier",
    "100",
    retryDelay,
  );
}

/** 429: the free tier's daily request quota (1000 a day) used up, as Google sends it. */
export function perDayQuota(retryDelay = "45s"): WireReply {
  return quotaExceeded(
    "EmbedContentRequestsPerDayPerUserPerProjectPerModel-FreeTier",
    "1000",
    retryDelay,
  );
}

/** 400: Google's answer to a wrong API key. */
export function apiKeyInvalid(): WireReply {
  return googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "API_KEY_INVALID",
      domain: "googleapis.com",
      metadata: { service: "generativelanguage.googleapis.com" },
    },
    {
      "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
      locale: "en-US",
      message: "API key not valid. Please pass a valid API key.",
    },
  ]);
}

/** 403: Google's answer to a request without a key. */
export function unregisteredCaller(): WireReply {
  return googleError(
    403,
    "PERMISSION_DENIED",
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );
}

/** 403: Google's answer to a key it blocked. */
export function leakedKey(): WireReply {
  return googleError(
    403,
    "PERMISSION_DENIED",
    "Your API key was reported as leaked. Please use another API key.",
  );
}

/** 400 INVALID_ARGUMENT with Google's message. */
export function invalidArgument(message: string): WireReply {
  return googleError(400, "INVALID_ARGUMENT", message);
}

/** 400: a text over the model's input limit. */
export function inputTooLong(tokens = 2781): WireReply {
  return invalidArgument(
    `The input token count (${tokens}) exceeds the maximum number of tokens allowed (2048).`,
  );
}

/** 404: a model the API does not have. */
export function modelNotFound(model: string): WireReply {
  return googleError(
    404,
    "NOT_FOUND",
    `models/${model} is not found for API version v1beta, or is not supported for batchEmbedContents. Call ListModels to see the list of available models and their supported methods.`,
  );
}

/** 500 INTERNAL, as Google sends it. */
export function internalError(): WireReply {
  return googleError(
    500,
    "INTERNAL",
    "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  );
}

/** 503 UNAVAILABLE, as Google sends it. */
export function overloaded(): WireReply {
  return googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
}

/** Google's front-end HTML page for a path it does not serve. */
function notFoundPage(): WireReply {
  return {
    status: 404,
    headers: { "content-type": "text/html; charset=UTF-8" },
    text: "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 404 (Not Found)!!1</title>\n  <p><b>404.</b> <ins>That’s an error.</ins>\n  <p>The requested URL was not found on this server.  <ins>That’s all we know.</ins>\n",
  };
}

/** The `requests` list of a recorded `batchEmbedContents` body (fails when there is none). */
export function sentRequests(request: RecordedRequest | undefined): WireEmbedRequest[] {
  const batch = (request?.body as { requests?: WireEmbedRequest[] } | undefined)?.requests;
  if (!Array.isArray(batch)) throw new Error("no batchEmbedContents body was recorded");
  return batch;
}
