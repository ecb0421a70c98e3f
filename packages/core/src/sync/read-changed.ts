import type { ChunkRecord, FileRecord } from "../driver/records.js";
import { isEngramError } from "../errors.js";
import { looksSealed, parseSealed } from "../sealing/format.js";
import { SEALED_SOURCE } from "../sealing/session.js";
import { maskSealedSpans } from "../sealing/spans.js";
import { SESSIONS_SOURCE, SESSIONS_TIER } from "../sessions/scan.js";
import { malformedWarning, renderTranscript } from "../sessions/transcript.js";
import { sha256Hex } from "../text/hash.js";
import { resolveLayout } from "../workspace/presets.js";
import { readUtf8 } from "../workspace/read.js";
import { chunkRecords } from "./chunk-records.js";
import type { IndexContext } from "./context.js";
import type { PlannedFile } from "./plan.js";
import type { SyncReport } from "./report.js";
import { scopedChunkRecords } from "./scoped-chunks.js";

/** What reading a changed file found. */
export type ReadOutcome =
  | { kind: "index"; record: FileRecord; chunks: ChunkRecord[]; warnings?: string[] }
  | { kind: "touch"; record: FileRecord }
  | { kind: "skipped"; skipped: SyncReport["skipped"][number] }
  | { kind: "gone" };

/**
 * Read a file the plan marked as changed: `index` (new content, chunked), `touch` (same content as
 * `known`, only its stats moved), `skipped` (unreadable, too large, not UTF-8) or `gone`.
 * Transcripts (source `sessions`) are rendered one line per message first, so chunk line ranges
 * are the `.jsonl` file's own lines.
 */
export async function readChanged(
  ctx: IndexContext,
  file: PlannedFile,
  known: FileRecord | undefined,
  maxBytes: number,
): Promise<ReadOutcome> {
  let text: string;
  let bytes: Buffer;
  try {
    ({ text, bytes } = await readUtf8(file.absPath, { maxBytes }));
  } catch (error) {
    if (isEngramError(error)) {
      return {
        kind: "skipped",
        skipped: { path: file.path, code: error.code, reason: error.describe() },
      };
    }
    const code = (error as NodeJS.ErrnoException).code ?? "READ_FAILED";
    if (code === "ENOENT") return { kind: "gone" };
    return {
      kind: "skipped",
      skipped: { path: file.path, code, reason: (error as Error).message },
    };
  }
  const transcript = file.source === SESSIONS_SOURCE;
  const record: FileRecord = {
    path: file.path,
    source: transcript ? SESSIONS_SOURCE : "memory",
    tier: transcript ? SESSIONS_TIER : ctx.tierOf(file.path),
    hash: sha256Hex(bytes),
    mtimeMs: file.mtimeMs,
    size: file.size,
  };
  // A sealed file's record is kept (so search can count it) with no chunks: its plaintext never
  // reaches the index, and its ciphertext is nothing to search.
  if (!transcript && looksSealed(text) && parseSealed(text)) record.source = SEALED_SOURCE;
  if (known && known.hash === record.hash && known.tier === record.tier) {
    return { kind: "touch", record };
  }
  if (transcript) {
    const rendered = renderTranscript(text);
    const warning = malformedWarning(file.path, rendered.malformed);
    return {
      kind: "index",
      record,
      chunks: chunkRecords(record, rendered.text, ctx.analyzer, ctx.config.chunking),
      ...(warning ? { warnings: [warning] } : {}),
    };
  }
  if (record.source === SEALED_SOURCE) return { kind: "index", record, chunks: [] };
  // A private span sealed in place is chunked as `[sealed]`: its ciphertext is no text to search.
  const scoped = scopedChunkRecords(
    record,
    maskSealedSpans(text),
    ctx.analyzer,
    ctx.config.chunking,
    personalFiles(ctx.config),
  );
  return {
    kind: "index",
    record,
    chunks: scoped.chunks,
    ...(scoped.warnings.length ? { warnings: scoped.warnings } : {}),
  };
}

const personal = new WeakMap<IndexContext["config"], readonly string[]>();

/** The layout's personal files (main scope only), resolved once per config. */
function personalFiles(config: IndexContext["config"]): readonly string[] {
  let files = personal.get(config);
  if (!files) {
    files = resolveLayout(config).personalFiles;
    personal.set(config, files);
  }
  return files;
}
