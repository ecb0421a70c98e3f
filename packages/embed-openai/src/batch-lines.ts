import { EmbeddingError, embeddingErrorFromHttp } from "@engram/core/driver";
import type { EmbeddingRequestBody } from "./connection.js";
import { scrubSecrets } from "./errors.js";
import type { RequestRange } from "./request-plan.js";
import { PROVIDER_ID } from "./settings.js";
import { readEmbeddingList } from "./vectors.js";

/** The `custom_id` of request `n` of a batch input file. */
export function customId(n: number): string {
  return `engram-${n}`;
}

/**
 * The JSONL input file of a batch: one line per request, exactly as OpenAI's Batch API reads it:
 * `{"custom_id": "engram-0", "method": "POST", "url": "/v1/embeddings", "body": {…}}`.
 */
export function batchInputFile(
  ranges: readonly RequestRange[],
  texts: readonly string[],
  body: (texts: readonly string[]) => EmbeddingRequestBody,
): string {
  return ranges
    .map((range, n) =>
      JSON.stringify({
        custom_id: customId(n),
        method: "POST",
        url: "/v1/embeddings",
        body: body(texts.slice(range.start, range.end)),
      }),
    )
    .join("\n")
    .concat("\n");
}

/** One line of a batch's output or error file, read. */
export type BatchLineResult =
  | { customId: string; vectors: Float32Array[] }
  | { customId: string; error: EmbeddingError };

/**
 * Read one line of a batch output or error file:
 * `{"id":…, "custom_id":…, "response": {"status_code":…, "request_id":…, "body":…}, "error":…}`.
 * A 200 response's body is an embeddings list (validated like a direct answer, `expected` vectors
 * of `dims`); a non-200 response carries the API's usual `{"error": {…}}` body and is classified
 * like a direct HTTP failure; a top-level `error` (`batch_expired`, `batch_cancelled`, …) is a
 * request that never ran.
 *
 * @param expected custom_id → number of inputs of that request.
 * @throws EmbeddingError `bad_response` for a line that is not such an object or names an unknown
 *   custom_id.
 */
export function readBatchLine(
  line: string,
  expected: ReadonlyMap<string, number>,
  dims: number,
  secrets: readonly string[],
): BatchLineResult {
  let record: {
    custom_id?: unknown;
    response?: { status_code?: unknown; request_id?: unknown; body?: unknown } | null;
    error?: { code?: unknown; message?: unknown } | null;
  };
  try {
    record = JSON.parse(line);
  } catch {
    throw badLine(`a result line is not JSON: ${JSON.stringify(line.slice(0, 80))}`);
  }
  const id = record?.custom_id;
  const count = typeof id === "string" ? expected.get(id) : undefined;
  if (typeof id !== "string" || count === undefined) {
    throw badLine(`a result line has an unknown custom_id ${JSON.stringify(id)}`);
  }
  if (record.error) {
    const code = typeof record.error.code === "string" ? record.error.code : "error";
    const message = typeof record.error.message === "string" ? record.error.message : "";
    const kind = code === "batch_expired" ? "timeout" : "server";
    return {
      customId: id,
      error: new EmbeddingError(
        kind,
        PROVIDER_ID,
        `${id}: ${code}: ${scrubSecrets(message, secrets)}`,
      ),
    };
  }
  const response = record.response;
  const status = response?.status_code;
  if (typeof status !== "number") throw badLine(`result ${id} has no response status`);
  if (status !== 200) {
    const body = (
      response?.body as { error?: { message?: unknown; code?: unknown; type?: unknown } }
    )?.error;
    const message = typeof body?.message === "string" ? scrubSecrets(body.message, secrets) : "";
    const quota = body?.code === "insufficient_quota" || body?.type === "insufficient_quota";
    return {
      customId: id,
      error: embeddingErrorFromHttp({
        provider: PROVIDER_ID,
        status,
        message: `${id}: ${message || `HTTP ${status}`}`,
        kind: quota ? "quota" : undefined,
      }),
    };
  }
  return { customId: id, vectors: readEmbeddingList(response?.body, count, dims) };
}

/**
 * Split a stream of bytes into lines (UTF-8, `\n` or `\r\n`), skipping blank ones, without
 * holding the whole file in memory.
 */
export async function* streamLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  for (;;) {
    const { done, value } = await reader.read();
    pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
    const lines = pending.split("\n");
    pending = done ? "" : (lines.pop() ?? "");
    for (const line of lines) {
      const trimmed = line.trim();
      if (trimmed) yield trimmed;
    }
    if (done) return;
  }
}

function badLine(problem: string): EmbeddingError {
  return new EmbeddingError("bad_response", PROVIDER_ID, `batch output: ${problem}`);
}
