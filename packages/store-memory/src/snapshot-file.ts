import { randomBytes } from "node:crypto";
import { type FileHandle, mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { snapshotDamagedError, snapshotUnreadableError } from "./errors.js";
import { type DecodedState, SnapshotDecoder, SnapshotFormatError } from "./snapshot-format.js";

/** Text is written in pieces of about this many characters. */
const WRITE_PIECE = 1 << 20;

/**
 * Write `lines` (each followed by a newline) to `path` atomically: into a new temp file next to
 * it, flushed to disk, then renamed over `path`. A failure removes the temp file and leaves the
 * previous `path` as it was. The folder is created when missing. Raw file-system errors escape.
 */
export async function writeLinesAtomically(path: string, lines: Iterable<string>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, "wx");
    let piece: string[] = [];
    let length = 0;
    for (const line of lines) {
      piece.push(line, "\n");
      length += line.length + 1;
      if (length >= WRITE_PIECE) {
        await writeAll(handle, piece.join(""));
        piece = [];
        length = 0;
      }
    }
    if (piece.length > 0) await writeAll(handle, piece.join(""));
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, path);
  } catch (error) {
    await handle?.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

/**
 * The snapshot at `path`, or undefined when there is no file. Throws `STORE_FAILED` naming the file
 * and the fix when it cannot be read or does not hold a snapshot.
 */
export async function readSnapshot(path: string): Promise<DecodedState | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw snapshotUnreadableError(path, error);
  }
  const decoder = new SnapshotDecoder();
  try {
    const lines = createInterface({
      input: handle.createReadStream({ encoding: "utf8", autoClose: false }),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) decoder.line(line);
    return decoder.finish();
  } catch (error) {
    if (error instanceof SnapshotFormatError)
      throw snapshotDamagedError(path, error.message, error);
    throw snapshotUnreadableError(path, error);
  } finally {
    await handle.close().catch(() => {});
  }
}

async function writeAll(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset);
    offset += bytesWritten;
  }
}
