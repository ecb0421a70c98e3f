import { EmbeddingError, isEmbeddingError, sleep } from "@engram/core/driver";
import type OpenAI from "openai";
import {
  type BatchLineResult,
  batchInputFile,
  customId,
  readBatchLine,
  streamLines,
} from "./batch-lines.js";
import type { Connection } from "./connection.js";
import { planRequests } from "./request-plan.js";
import { PROVIDER_ID } from "./settings.js";

type Batch = OpenAI.Batch;

const TERMINAL: ReadonlySet<Batch["status"]> = new Set([
  "completed",
  "failed",
  "expired",
  "cancelled",
]);

/** Poll failures in a row (network, 5xx, 429) tolerated before the wait is given up. */
const MAX_POLL_FAILURES = 5;

/**
 * Embed `texts` through OpenAI's Batch API, the way OpenAI documents it:
 *
 * 1. build a JSONL file, one `POST /v1/embeddings` request per line, each bounded like a direct
 *    request (`maxBatchSize` texts, `maxTokensPerRequest` tokens), `custom_id` `engram-<n>`;
 * 2. upload it (`files.create`, purpose `batch`) and start the batch (`batches.create`, endpoint
 *    `/v1/embeddings`, completion window `24h`);
 * 3. poll `batches.retrieve` every `batchPollIntervalMs` until `completed`, `failed`, `expired` or
 *    `cancelled`. Transient poll failures (up to 5 in a row) wait for the next poll instead of
 *    throwing away the job. After `batchTimeoutMs`, or when `signal` aborts, the batch is cancelled
 *    and the call throws `timeout` (or the abort reason);
 * 4. stream the output and error files (`files.content`) and match every line to its request by
 *    `custom_id` and every vector by `index`; then delete the files engram created or received.
 *
 * @throws EmbeddingError a failed batch is `bad_input` (its validation errors named), or
 *   `rate_limit` when the organisation's enqueued-token limit is reached; an expired batch is
 *   `timeout`; failed lines are classified like direct HTTP failures (the first final one wins);
 *   missing or malformed results are `bad_response`.
 */
export async function embedWithBatchApi(
  connection: Connection,
  texts: readonly string[],
  dims: number,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const { client, options, sdk } = connection;
  const deadline = Date.now() + options.batch.timeoutMs;
  // Uploads and downloads of big files may take longer than one ordinary request.
  const transferMs = () => Math.max(options.timeoutMs, deadline - Date.now());
  const ranges = planRequests(texts, options.maxBatchSize, options.maxTokensPerRequest);
  const expected = new Map(ranges.map((range, n) => [customId(n), range.end - range.start]));
  const jsonl = batchInputFile(ranges, texts, connection.body);

  const input = await connection.call(
    "POST /files",
    async (s) =>
      client.files.create(
        {
          file: await sdk.toFile(Buffer.from(jsonl, "utf8"), "engram-embeddings.jsonl", {
            type: "application/jsonl",
          }),
          purpose: "batch",
        },
        { signal: s, timeout: transferMs() },
      ),
    signal,
    transferMs(),
  );
  const created: string[] = [input.id];
  let settled = true;
  try {
    let batch = await connection.call(
      "POST /batches",
      (s) =>
        client.batches.create(
          {
            input_file_id: input.id,
            endpoint: "/v1/embeddings",
            completion_window: "24h",
            metadata: { source: "engram" },
          },
          { signal: s },
        ),
      signal,
    );
    settled = false;
    batch = await waitForBatch(connection, batch, deadline, signal);
    settled = true;
    for (const id of [batch.output_file_id, batch.error_file_id]) if (id) created.push(id);
    if (batch.status !== "completed") throw batchFailure(batch);

    const results = new Map<string, Float32Array[]>();
    const failures: EmbeddingError[] = [];
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      const lines = await readResultFile(connection, fileId, expected, dims, signal, transferMs);
      for (const line of lines) {
        if ("error" in line) failures.push(line.error);
        else results.set(line.customId, line.vectors);
      }
    }
    if (failures.length) throw worstFailure(batch.id, failures, ranges.length);
    const out: Float32Array[] = new Array(texts.length);
    let missing = 0;
    for (const [n, range] of ranges.entries()) {
      const vectors = results.get(customId(n));
      if (!vectors) missing++;
      else for (const [j, vector] of vectors.entries()) out[range.start + j] = vector;
    }
    if (missing) {
      throw new EmbeddingError(
        "bad_response",
        PROVIDER_ID,
        `batch ${batch.id} completed without results for ${missing} of ${ranges.length} requests`,
      );
    }
    return out;
  } finally {
    // A batch still running (timed out or aborted, and cancelling) keeps its input file.
    if (settled) await deleteFiles(connection, created);
  }
}

/** Poll until the batch is terminal; cancel it on timeout or abort. */
async function waitForBatch(
  connection: Connection,
  initial: Batch,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<Batch> {
  const { client, options } = connection;
  let batch = initial;
  let failures = 0;
  let delay = options.batch.pollIntervalMs;
  while (!TERMINAL.has(batch.status)) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      const cancelled = await cancelQuietly(connection, batch.id);
      throw new EmbeddingError(
        "timeout",
        PROVIDER_ID,
        `batch ${batch.id} was still ${batch.status} after ${options.batch.timeoutMs} ms; ${cancelled ? "it was cancelled" : "cancelling it failed"}`,
        {
          hint: "raise embedding.providers.openai.batchTimeoutMs (OpenAI may take up to 24 h), or turn batch off",
        },
      );
    }
    try {
      await sleep(Math.min(delay, remaining), signal);
      const id = batch.id;
      batch = await connection.call(
        `GET /batches/${id}`,
        (s) => client.batches.retrieve(id, { signal: s }),
        signal,
      );
      failures = 0;
      delay = options.batch.pollIntervalMs;
    } catch (error) {
      const transient =
        !signal?.aborted &&
        isEmbeddingError(error) &&
        error.retryable &&
        ++failures < MAX_POLL_FAILURES;
      if (!transient) {
        await cancelQuietly(connection, batch.id);
        throw error;
      }
      delay = Math.max(options.batch.pollIntervalMs, (error as EmbeddingError).retryAfterMs ?? 0);
    }
  }
  return batch;
}

/** Read one output or error file, line by line. */
function readResultFile(
  connection: Connection,
  fileId: string,
  expected: ReadonlyMap<string, number>,
  dims: number,
  signal: AbortSignal | undefined,
  transferMs: () => number,
): Promise<BatchLineResult[]> {
  const secrets = connection.options.apiKey ? [connection.options.apiKey] : [];
  return connection.call(
    `GET /files/${fileId}/content`,
    async (s) => {
      const response = await connection.client.files.content(fileId, {
        signal: s,
        timeout: transferMs(),
      });
      if (!response.body) return [];
      const lines: BatchLineResult[] = [];
      for await (const line of streamLines(response.body)) {
        lines.push(readBatchLine(line, expected, dims, secrets));
      }
      return lines;
    },
    signal,
    transferMs(),
  );
}

/** Why a batch that did not complete failed, as an EmbeddingError. */
function batchFailure(batch: Batch): EmbeddingError {
  if (batch.status === "expired") {
    return new EmbeddingError(
      "timeout",
      PROVIDER_ID,
      `batch ${batch.id} expired: OpenAI did not run it within its 24 h window`,
    );
  }
  if (batch.status === "cancelled") {
    return new EmbeddingError(
      "server",
      PROVIDER_ID,
      `batch ${batch.id} was cancelled outside engram`,
    );
  }
  const errors = batch.errors?.data ?? [];
  const described = errors
    .slice(0, 3)
    .map((e) => `${e.code ?? "error"}: ${e.message ?? ""}${e.line ? ` (line ${e.line})` : ""}`)
    .join("; ");
  const limited = errors.some((e) => e.code === "token_limit_exceeded");
  return new EmbeddingError(
    limited ? "rate_limit" : "bad_input",
    PROVIDER_ID,
    `batch ${batch.id} failed${described ? `: ${described}` : ""}`,
    limited
      ? {
          hint: "OpenAI's enqueued-token limit is reached: wait for running batches, or lower batchConcurrency",
        }
      : {},
  );
}

/** One error for all failed lines: the first final one (retrying cannot fix it), else the first. */
function worstFailure(batchId: string, failures: EmbeddingError[], total: number): EmbeddingError {
  const worst = failures.find((e) => !e.retryable) ?? (failures[0] as EmbeddingError);
  const detail = worst.message.replace(`${PROVIDER_ID}: `, "");
  return new EmbeddingError(
    worst.kind,
    PROVIDER_ID,
    `batch ${batchId}: ${failures.length} of ${total} requests failed; ${detail}`,
    {
      ...(worst.status !== undefined ? { status: worst.status } : {}),
      ...(worst.retryAfterMs !== undefined ? { retryAfterMs: worst.retryAfterMs } : {}),
      ...(worst.hint ? { hint: worst.hint } : {}),
    },
  );
}

/** Ask OpenAI to cancel a batch; true when it accepted. Never throws. */
async function cancelQuietly(connection: Connection, id: string): Promise<boolean> {
  try {
    await connection.call(`POST /batches/${id}/cancel`, (s) =>
      connection.client.batches.cancel(id, { signal: s }),
    );
    return true;
  } catch {
    return false;
  }
}

/** Delete files engram uploaded or was given; failures are ignored (files also expire). */
async function deleteFiles(connection: Connection, ids: readonly string[]): Promise<void> {
  await Promise.allSettled(
    ids.map((id) =>
      connection.call(`DELETE /files/${id}`, (s) =>
        connection.client.files.delete(id, { signal: s }),
      ),
    ),
  );
}
