import { createHash, randomBytes } from "node:crypto";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ChatBehaviour,
  type ChatCompletionsBody,
  chatCompletionResult,
} from "./openai-chat-wire.js";

/**
 * A local HTTP server that speaks OpenAI's wire format for the endpoints engram uses: embeddings,
 * chat completions (`openai-chat-wire.ts`), files (multipart upload, content, delete) and batches
 * (create, retrieve, cancel). Status codes,
 * JSON shapes and headers follow what api.openai.com sends. Every request is recorded, so tests can
 * assert exactly how many requests were made.
 */

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path without the `/v1` prefix and without the query, e.g. `/embeddings`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or for multipart uploads `{ fields, file: { name, type, text } }`. */
  body: unknown;
}

/** Answers one request instead of the emulator (a scenario). `next` runs the emulator. */
export type Responder = (
  req: RecordedRequest,
  res: ServerResponse,
  next: () => Promise<void>,
) => void | Promise<void>;

/** A failure planned for one line of a batch: the HTTP status and body the line gets. */
export interface BatchLineFailure {
  status: number;
  body: unknown;
}

/** How batches behave. */
export interface BatchBehaviour {
  /** Validation errors: the batch goes `validating` → `failed` with these in `errors.data`. */
  failValidation?: Array<{ code: string; message: string; line?: number | null }>;
  /** Stay `in_progress` forever (until cancelled). */
  stall?: boolean;
  /** Go `validating` → `in_progress` → `expired`. */
  expire?: boolean;
  /** Write the output file in reverse order (OpenAI does not promise input order). */
  reverseOutput?: boolean;
  /** Per-line outcome: a failure puts the line in the error file. */
  lineFailure?: (customId: string, body: EmbeddingsBody) => BatchLineFailure | undefined;
}

interface StoredFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: Buffer;
  created_at: number;
}

type BatchObject = Record<string, unknown> & { id: string; status: string };

/** Options of {@link startOpenAIWireServer}. */
export interface WireServerOptions {
  /** The key requests must carry (`Authorization: Bearer …`); undefined: no auth (Ollama-style). */
  apiKey?: string;
  /** Answer number arrays even when base64 is asked for (older Ollama, some proxies). */
  ignoreEncodingFormat?: boolean;
  /** What the chat model answers, and which models exist. */
  chat?: ChatBehaviour;
}

/** A running server. */
export interface OpenAIWireServer {
  /** Base URL to give the SDK, e.g. `http://127.0.0.1:1234/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Requests to one route, e.g. `count("POST /embeddings")`. */
  count(route: string): number;
  /** Answer the next request to `route` (e.g. `POST /embeddings`) with `responder`, once. */
  once(route: string, responder: Responder): void;
  /** Answer every request to `route` with `responder`. */
  always(route: string, responder: Responder): void;
  /** Stop answering `route` with what {@link always} set: serve it normally again. */
  heal(route: string): void;
  batch: BatchBehaviour;
  files: Map<string, StoredFile>;
  batches: Map<string, BatchObject>;
  close(): Promise<void>;
}

/** Native vector sizes the emulator gives each model. */
const MODEL_DIMS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
  "nomic-embed-text": 768,
};

/**
 * The raw (not normalised) vector the emulator returns for `text`: deterministic, derived from
 * SHA-256, values in [-2, 2], so tests can compute the expected normalised vector independently.
 */
export function fakeVector(text: string, dims: number): Float32Array {
  const out = new Float32Array(dims);
  let block = Buffer.alloc(0);
  for (let i = 0; i < dims; i++) {
    if (i % 16 === 0) {
      block = createHash("sha256")
        .update(`${text}\u0000${i / 16}`)
        .digest();
    }
    out[i] = (block.readUInt16LE((i % 16) * 2) / 65535) * 4 - 2;
  }
  return out;
}

/** Little-endian float32 bytes as base64, as OpenAI encodes `encoding_format: "base64"`. */
export function toBase64(vector: Float32Array | number[]): string {
  const buf = Buffer.alloc(vector.length * 4);
  for (const [i, x] of Array.from(vector).entries()) buf.writeFloatLE(x, i * 4);
  return buf.toString("base64");
}

/** Start the server on a free port of 127.0.0.1. */
export async function startOpenAIWireServer(
  options: WireServerOptions = {},
): Promise<OpenAIWireServer> {
  const requests: RecordedRequest[] = [];
  const onceQueue = new Map<string, Responder[]>();
  const persistent = new Map<string, Responder>();
  const files = new Map<string, StoredFile>();
  const batches = new Map<string, BatchObject>();
  const state = { batch: {} as BatchBehaviour };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) json(res, 500, apiError(String(error), "server_error"));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname.replace(/^\/v1/, "");
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      query: url.searchParams,
      headers: req.headers,
      body: await parseBody(req.headers["content-type"], raw),
    };
    requests.push(recorded);
    const route = `${recorded.method} ${routeOf(path)}`;
    const next = () => emulate(recorded, res);
    const responder = onceQueue.get(route)?.shift() ?? persistent.get(route);
    if (responder) return responder(recorded, res, next);
    return next();
  }

  async function emulate(req: RecordedRequest, res: ServerResponse): Promise<void> {
    if (options.apiKey !== undefined) {
      const auth = req.headers.authorization ?? "";
      const given = auth.replace(/^Bearer /, "");
      if (given !== options.apiKey) return invalidApiKey(given)(req, res, async () => {});
    }
    const route = `${req.method} ${routeOf(req.path)}`;
    const id = req.path.split("/")[2] ?? "";
    switch (route) {
      case "POST /embeddings": {
        const result = embeddingsResult(req.body as EmbeddingsBody, options);
        return json(res, result.status, result.body, okHeaders((req.body as EmbeddingsBody).model));
      }
      case "POST /chat/completions": {
        const result = chatCompletionResult(req.body as ChatCompletionsBody, options.chat);
        return json(
          res,
          result.status,
          result.body,
          okHeaders((req.body as ChatCompletionsBody).model),
        );
      }
      case "POST /files":
        return uploadFile(req, res);
      case "GET /files/:id/content": {
        const file = files.get(id);
        if (!file) return json(res, 404, noSuch("File", id));
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.end(file.bytes);
        return;
      }
      case "DELETE /files/:id": {
        if (!files.delete(id)) return json(res, 404, noSuch("File", id));
        return json(res, 200, { id, object: "file", deleted: true });
      }
      case "POST /batches":
        return createBatch(req, res);
      case "GET /batches/:id": {
        const batch = batches.get(id);
        if (!batch) return json(res, 404, noSuch("Batch", id));
        advance(batch);
        return json(res, 200, batch);
      }
      case "POST /batches/:id/cancel": {
        const batch = batches.get(id);
        if (!batch) return json(res, 404, noSuch("Batch", id));
        if (!["validating", "in_progress", "finalizing"].includes(batch.status)) {
          return json(
            res,
            409,
            apiError(
              `Cannot cancel a batch with status '${batch.status}'.`,
              "invalid_request_error",
            ),
          );
        }
        Object.assign(batch, { status: "cancelling", cancelling_at: now() });
        return json(res, 200, batch);
      }
      default:
        return json(
          res,
          404,
          apiError(`Invalid URL (${req.method} /v1${req.path})`, "invalid_request_error"),
        );
    }
  }

  function uploadFile(req: RecordedRequest, res: ServerResponse) {
    const form = req.body as MultipartBody;
    const purpose = form.fields?.purpose;
    if (!form.file)
      return json(res, 400, apiError("Missing file", "invalid_request_error", "file"));
    if (!purpose) {
      return json(
        res,
        400,
        apiError("Missing required parameter: 'purpose'.", "invalid_request_error", "purpose"),
      );
    }
    if (purpose === "batch" && !form.file.name.endsWith(".jsonl")) {
      return json(
        res,
        400,
        apiError("Invalid file format for Batch API. Must be .jsonl", "invalid_request_error"),
      );
    }
    const file: StoredFile = {
      id: `file-${randomBytes(11).toString("hex")}`,
      filename: form.file.name,
      purpose,
      bytes: Buffer.from(form.file.text, "utf8"),
      created_at: now(),
    };
    files.set(file.id, file);
    json(res, 200, fileObject(file));
  }

  function createBatch(req: RecordedRequest, res: ServerResponse) {
    const body = req.body as Record<string, unknown>;
    const input = files.get(String(body.input_file_id));
    if (!input) return json(res, 404, noSuch("File", String(body.input_file_id)));
    if (body.completion_window !== "24h") {
      return json(
        res,
        400,
        apiError(
          "Invalid completion_window: must be '24h'",
          "invalid_request_error",
          "completion_window",
        ),
      );
    }
    const created = now();
    const batch: BatchObject = {
      id: `batch_${randomBytes(12).toString("hex")}`,
      object: "batch",
      endpoint: body.endpoint,
      errors: null,
      input_file_id: input.id,
      completion_window: "24h",
      status: "validating",
      output_file_id: null,
      error_file_id: null,
      created_at: created,
      in_progress_at: null,
      expires_at: created + 86_400,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_counts: { total: 0, completed: 0, failed: 0 },
      metadata: body.metadata ?? null,
    };
    batches.set(batch.id, batch);
    json(res, 200, batch);
  }

  /** One step of the batch lifecycle per retrieve, as a real batch moves on while polled. */
  function advance(batch: BatchObject): void {
    const behaviour = state.batch;
    switch (batch.status) {
      case "validating": {
        const errors = behaviour.failValidation ?? validateInput(batch);
        if (errors.length) {
          Object.assign(batch, {
            status: "failed",
            failed_at: now(),
            errors: {
              object: "list",
              data: errors.map((e) => ({ param: null, line: null, ...e })),
            },
          });
        } else {
          const total = inputLines(batch).length;
          Object.assign(batch, {
            status: "in_progress",
            in_progress_at: now(),
            request_counts: { total, completed: 0, failed: 0 },
          });
        }
        return;
      }
      case "in_progress":
        if (behaviour.stall) return;
        if (behaviour.expire) {
          Object.assign(batch, { status: "expired", expired_at: now() });
          return;
        }
        Object.assign(batch, { status: "finalizing", finalizing_at: now() });
        return;
      case "finalizing":
        complete(batch);
        return;
      case "cancelling":
        Object.assign(batch, { status: "cancelled", cancelled_at: now() });
        return;
    }
  }

  function validateInput(
    batch: BatchObject,
  ): Array<{ code: string; message: string; line: number }> {
    const errors: Array<{ code: string; message: string; line: number }> = [];
    const seen = new Set<string>();
    inputLines(batch).forEach((text, i) => {
      let line: { custom_id?: string; url?: string };
      try {
        line = JSON.parse(text);
      } catch {
        errors.push({
          code: "invalid_json_line",
          message: "This line is not parseable as valid JSON.",
          line: i + 1,
        });
        return;
      }
      if (seen.has(String(line.custom_id))) {
        errors.push({
          code: "duplicate_custom_id",
          message:
            "The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each request in a batch.",
          line: i + 1,
        });
      }
      seen.add(String(line.custom_id));
      if (line.url !== batch.endpoint) {
        errors.push({
          code: "url_mismatch",
          message: "The provided URL for this request does not match the batch endpoint.",
          line: i + 1,
        });
      }
    });
    return errors;
  }

  function inputLines(batch: BatchObject): string[] {
    const file = files.get(String(batch.input_file_id));
    return (file?.bytes.toString("utf8") ?? "").split("\n").filter((l) => l.trim());
  }

  function complete(batch: BatchObject): void {
    const output: string[] = [];
    const errors: string[] = [];
    for (const text of inputLines(batch)) {
      const line = JSON.parse(text) as { custom_id: string; body: EmbeddingsBody };
      const planned = state.batch.lineFailure?.(line.custom_id, line.body);
      const result = planned ?? embeddingsResult(line.body, options);
      const record = {
        id: `batch_req_${randomBytes(12).toString("hex")}`,
        custom_id: line.custom_id,
        response: {
          status_code: result.status,
          request_id: randomBytes(16).toString("hex"),
          body: result.body,
        },
        error: null,
      };
      (result.status === 200 ? output : errors).push(JSON.stringify(record));
    }
    if (state.batch.reverseOutput) output.reverse();
    const store = (lines: string[], name: string) => {
      if (!lines.length) return null;
      const file: StoredFile = {
        id: `file-${randomBytes(11).toString("hex")}`,
        filename: name,
        purpose: "batch_output",
        bytes: Buffer.from(`${lines.join("\n")}\n`, "utf8"),
        created_at: now(),
      };
      files.set(file.id, file);
      return file.id;
    };
    Object.assign(batch, {
      status: "completed",
      completed_at: now(),
      output_file_id: store(output, "batch_output.jsonl"),
      error_file_id: store(errors, "batch_errors.jsonl"),
      request_counts: {
        total: output.length + errors.length,
        completed: output.length,
        failed: errors.length,
      },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    count: (route) => requests.filter((r) => `${r.method} ${routeOf(r.path)}` === route).length,
    once(route, responder) {
      const queue = onceQueue.get(route) ?? [];
      queue.push(responder);
      onceQueue.set(route, queue);
    },
    always(route, responder) {
      persistent.set(route, responder);
    },
    heal(route) {
      persistent.delete(route);
    },
    get batch() {
      return state.batch;
    },
    set batch(value) {
      state.batch = value;
    },
    files,
    batches,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface EmbeddingsBody {
  model?: string;
  input?: string | string[];
  encoding_format?: "float" | "base64";
  dimensions?: number;
}

interface MultipartBody {
  fields?: Record<string, string>;
  file?: { name: string; type: string; text: string };
}

/** What `POST /embeddings` answers for `body` (also used for batch lines). */
function embeddingsResult(
  body: EmbeddingsBody,
  options: WireServerOptions,
): { status: number; body: unknown } {
  const model = body.model ?? "";
  const native = MODEL_DIMS[model];
  if (native === undefined && model.startsWith("text-embedding")) {
    return {
      status: 404,
      body: apiError(
        `The model \`${model}\` does not exist or you do not have access to it.`,
        "invalid_request_error",
        null,
        "model_not_found",
      ),
    };
  }
  const inputs = typeof body.input === "string" ? [body.input] : (body.input ?? []);
  if (!inputs.length) {
    return {
      status: 400,
      body: apiError(
        "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
        "invalid_request_error",
      ),
    };
  }
  const dims = body.dimensions ?? native ?? 384;
  const base64 = body.encoding_format === "base64" && !options.ignoreEncodingFormat;
  const tokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  return {
    status: 200,
    body: {
      object: "list",
      data: inputs.map((text, index) => {
        const vector = fakeVector(text, dims);
        return {
          object: "embedding",
          index,
          embedding: base64 ? toBase64(vector) : Array.from(vector),
        };
      }),
      model: model === "text-embedding-3-small" ? "text-embedding-3-small" : model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

// ——— Real OpenAI responses, for scenarios ———

/** OpenAI's error body. */
export function apiError(
  message: string,
  type: string | null,
  param: string | null = null,
  code: string | null = null,
): { error: { message: string; type: string | null; param: string | null; code: string | null } } {
  return { error: { message, type, param, code } };
}

/** Write a JSON response with OpenAI's usual headers. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "openai-version": "2020-10-01",
    "openai-processing-ms": "23",
    "x-request-id": `req_${randomBytes(16).toString("hex")}`,
    ...headers,
  });
  res.end(text);
}

function okHeaders(model: string | undefined): Record<string, string> {
  return {
    "openai-model": model ?? "",
    "openai-organization": "user-engramtests",
    "x-ratelimit-limit-requests": "3000",
    "x-ratelimit-limit-tokens": "1000000",
    "x-ratelimit-remaining-requests": "2999",
    "x-ratelimit-remaining-tokens": "999990",
    "x-ratelimit-reset-requests": "20ms",
    "x-ratelimit-reset-tokens": "0s",
  };
}

/** 429 "Rate limit reached …" with `x-ratelimit-*` and, when given, `retry-after(-ms)`. */
export function rateLimited(
  options: { retryAfter?: string; retryAfterMs?: string; tryAgainIn?: string; reset?: string } = {},
): Responder {
  return (_req, res) =>
    json(
      res,
      429,
      apiError(
        `Rate limit reached for text-embedding-3-small in organization org-engramtests on tokens per min (TPM): Limit 1000000, Used 999500, Requested 800.${options.tryAgainIn ? ` Please try again in ${options.tryAgainIn}.` : ""} Visit https://platform.openai.com/account/rate-limits to learn more.`,
        "tokens",
        null,
        "rate_limit_exceeded",
      ),
      {
        "x-ratelimit-limit-requests": "3000",
        "x-ratelimit-limit-tokens": "1000000",
        "x-ratelimit-remaining-requests": "2999",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-requests": "20ms",
        "x-ratelimit-reset-tokens": options.reset ?? "0s",
        ...(options.retryAfter ? { "retry-after": options.retryAfter } : {}),
        ...(options.retryAfterMs ? { "retry-after-ms": options.retryAfterMs } : {}),
      },
    );
}

/** 429 insufficient_quota, exactly as OpenAI words it. */
export function insufficientQuota(): Responder {
  return (_req, res) =>
    json(
      res,
      429,
      apiError(
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        "insufficient_quota",
        null,
        "insufficient_quota",
      ),
    );
}

/** 401 invalid_api_key, echoing the key masked as OpenAI does. */
export function invalidApiKey(given: string): Responder {
  const masked =
    given.length > 11
      ? `${given.slice(0, 7)}${"*".repeat(given.length - 11)}${given.slice(-4)}`
      : given;
  return (_req, res) =>
    json(
      res,
      401,
      apiError(
        `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        "invalid_request_error",
        null,
        "invalid_api_key",
      ),
    );
}

/** 400 for an input over the model's context. */
export function contextLengthExceeded(tokens = 8610): Responder {
  return (_req, res) =>
    json(
      res,
      400,
      apiError(
        `This model's maximum context length is 8192 tokens, however you requested ${tokens} tokens (${tokens} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
        "invalid_request_error",
      ),
    );
}

/** 500 server_error. */
export function serverError(): Responder {
  return (_req, res) =>
    json(
      res,
      500,
      apiError(
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
      ),
    );
}

/** 503 overloaded. */
export function overloaded(): Responder {
  return (_req, res) =>
    json(
      res,
      503,
      apiError("The engine is currently overloaded, please try again later.", "server_error"),
    );
}

/** 403 from an unsupported region. */
export function regionForbidden(): Responder {
  return (_req, res) =>
    json(res, 403, {
      error: {
        code: "unsupported_country_region_territory",
        message: "Country, region, or territory not supported",
        param: null,
        type: "request_forbidden",
      },
    });
}

/** Any status, content type and body text. */
export function rawResponse(status: number, contentType: string, text: string): Responder {
  return (_req, res) => {
    res.writeHead(status, { "content-type": contentType });
    res.end(text);
  };
}

/** A 200 embeddings list built by `build` from the emulator's real answer. */
export function mangledEmbeddings(
  build: (real: { data: Array<Record<string, unknown>> }) => unknown,
): Responder {
  return (req, res) => {
    const real = embeddingsResult(req.body as EmbeddingsBody, {});
    json(res, 200, build(real.body as { data: Array<Record<string, unknown>> }));
  };
}

/** Wait `ms` before answering normally (a slow server: headers come late). */
export function slowHeaders(ms: number): Responder {
  return async (_req, res, next) => {
    await pause(res, ms);
    if (!res.destroyed) await next();
  };
}

/** Send headers and half a body, then stall for `ms`. */
export function stalledBody(ms: number): Responder {
  return async (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"object":"list","data":[');
    await pause(res, ms);
    if (!res.destroyed) res.end("]}");
  };
}

/** Drop the connection without answering. */
export function dropConnection(): Responder {
  return (req, res) => {
    void req;
    res.socket?.destroy();
  };
}

/** Wait `ms`, or less if the client goes away first (so no timer outlives a test). */
function pause(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    res.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function fileObject(file: StoredFile): Record<string, unknown> {
  return {
    object: "file",
    id: file.id,
    purpose: file.purpose,
    filename: file.filename,
    bytes: file.bytes.length,
    created_at: file.created_at,
    expires_at: file.created_at + 30 * 86_400,
    status: "processed",
    status_details: null,
  };
}

function noSuch(kind: string, id: string) {
  return apiError(`No such ${kind} object: ${id}`, "invalid_request_error", "id");
}

function routeOf(path: string): string {
  return path
    .replace(/^\/files\/[^/]+\/content$/, "/files/:id/content")
    .replace(/^\/files\/[^/]+$/, "/files/:id")
    .replace(/^\/batches\/[^/]+\/cancel$/, "/batches/:id/cancel")
    .replace(/^\/batches\/[^/]+$/, "/batches/:id");
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function parseBody(contentType: string | undefined, raw: Buffer): Promise<unknown> {
  if (!raw.length) return undefined;
  if (contentType?.startsWith("multipart/form-data")) {
    const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
    const fields: Record<string, string> = {};
    let file: MultipartBody["file"];
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") fields[name] = value;
      else if (name === "file")
        file = { name: value.name, type: value.type, text: await value.text() };
    }
    return { fields, file } satisfies MultipartBody;
  }
  const text = raw.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
