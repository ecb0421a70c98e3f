import { open } from "node:fs/promises";
import type { FileRecord } from "../driver/records.js";
import type { ScannedFile } from "../workspace/scan.js";
import type { SessionsConfig } from "./scan.js";

/**
 * Whether a transcript is (re)indexed now:
 * - `new`: never indexed — indexed at once, whatever its size;
 * - `rewritten`: smaller than when indexed, or same size with another mtime — re-indexed at once;
 * - `grown`: it grew by at least `deltaBytes` or `deltaMessages` lines since it was indexed;
 * - `waiting`: it grew, but by less — left for a later sync (searchable as it was);
 * - `unchanged`: same size and mtime.
 */
export type TranscriptDelta = "new" | "rewritten" | "grown" | "waiting" | "unchanged";

/**
 * Decide from the file's stats and, when the byte delta alone is not enough, the appended bytes
 * (at most `deltaBytes` are read, and only past what was indexed). The size the index recorded is
 * the per-file watermark; the lines are counted in what was appended since.
 */
export async function transcriptDelta(
  file: ScannedFile,
  known: FileRecord | undefined,
  sessions: Pick<SessionsConfig, "deltaBytes" | "deltaMessages">,
): Promise<TranscriptDelta> {
  if (!known) return "new";
  if (file.size === known.size) return file.mtimeMs === known.mtimeMs ? "unchanged" : "rewritten";
  if (file.size < known.size) return "rewritten";
  const grownBy = file.size - known.size;
  if (grownBy >= sessions.deltaBytes) return "grown";
  const lines = await countNewlines(file.absPath, known.size, grownBy);
  return lines >= sessions.deltaMessages ? "grown" : "waiting";
}

/** Newlines in `length` bytes of a file from `offset` (a file that vanished counts 0). */
async function countNewlines(absPath: string, offset: number, length: number): Promise<number> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(absPath, "r");
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    let count = 0;
    for (let i = buffer.indexOf(10, 0); i !== -1 && i < bytesRead; i = buffer.indexOf(10, i + 1)) {
      count++;
    }
    return count;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  } finally {
    await handle?.close();
  }
}
