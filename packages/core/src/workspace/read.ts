import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { EngramError } from "../errors.js";
import { resolveMemoryPath } from "./sandbox.js";

/** Largest file read when the caller names no limit (the default of `sync.maxFileBytes`). */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Strict decoder: invalid UTF-8 throws instead of becoming U+FFFD; a leading BOM is dropped. */
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a file as strict UTF-8. The size is checked on the open handle before any byte is read,
 * so an oversized file is never loaded. `text` has a leading BOM removed; `bytes` is the file as
 * stored (hash these).
 *
 * @throws EngramError `FILE_TOO_LARGE` when the file exceeds `maxBytes`.
 * @throws EngramError `INVALID_ENCODING` when the bytes are not valid UTF-8.
 * Other file-system errors (e.g. `ENOENT` for a file deleted meanwhile) are rethrown unchanged so
 * callers such as the indexer can tell "gone" from "bad".
 *
 * The I/O is synchronous on purpose: memory files are small, and four awaited round trips per
 * file (open, stat, read, close) left a cold sync idle for a quarter of its time (SciFact: 5,183
 * files, ~1.2 s idle out of 4.8 s) — each step waited for the main thread, busy chunking.
 */
export async function readUtf8(
  absPath: string,
  options: { maxBytes: number },
): Promise<{ text: string; bytes: Buffer }> {
  const { maxBytes } = options;
  const fd = openSync(absPath, "r");
  let bytes: Buffer;
  try {
    const { size } = fstatSync(fd);
    if (size > maxBytes) throw tooLarge(absPath, size, maxBytes);
    bytes = readAll(fd, size, maxBytes);
  } finally {
    closeSync(fd);
  }
  // The file may have grown between stat and read.
  if (bytes.length > maxBytes) throw tooLarge(absPath, bytes.length, maxBytes);
  try {
    return { text: decoder.decode(bytes), bytes };
  } catch (error) {
    throw new EngramError("INVALID_ENCODING", `${absPath} is not valid UTF-8 text`, {
      hint: "re-save the file as UTF-8",
      cause: error,
    });
  }
}

/** Read to end of file (it may have changed since the stat), never more than `maxBytes` + 1. */
function readAll(fd: number, expected: number, maxBytes: number): Buffer {
  let buffer = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) break;
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const n = readSync(fd, buffer, length, buffer.length - length, null);
    if (n === 0) break;
    length += n;
  }
  return buffer.subarray(0, length);
}

function tooLarge(absPath: string, size: number, maxBytes: number): EngramError {
  return new EngramError(
    "FILE_TOO_LARGE",
    `${absPath} is ${size} bytes, over the ${maxBytes}-byte limit`,
    {
      hint: `split the file, or raise sync.maxFileBytes (now ${maxBytes}) in engram.config.json`,
    },
  );
}

/** Options of {@link readMemoryFile}. */
export interface ReadMemoryFileOptions {
  /** First line to return, 1-based. Default 1. */
  from?: number;
  /** How many lines to return. Default: through the end of the file. */
  lines?: number;
  /** Extra Markdown folders/files that are readable besides the workspace's memory. */
  extraPaths?: readonly string[];
  /** Size limit in bytes. Default {@link DEFAULT_MAX_FILE_BYTES}. */
  maxBytes?: number;
}

/** Lines returned by {@link readMemoryFile}. */
export interface MemoryFileSlice {
  /** Index key of the file (as search results name it). */
  path: string;
  /** The lines, joined with `\n`, without a trailing newline (CRLF is returned as LF). */
  text: string;
  /** 1-based number of the first returned line. */
  startLine: number;
  /** 1-based number of the last returned line; `startLine - 1` when no line was returned. */
  endLine: number;
  /** Lines in the whole file (a final newline does not start another line; an empty file has 0). */
  totalLines: number;
}

/**
 * `memory_get`: reads exact lines of a memory file, through the {@link resolveMemoryPath} sandbox.
 *
 * `from` past the end is not an error: the result has empty `text`, `startLine = from`,
 * `endLine = from - 1` and the real `totalLines`, so an agent paging through a file sees where it
 * ends. `lines` beyond the end is clipped.
 *
 * @throws EngramError `INVALID_ARGUMENT` when `from` or `lines` is not a positive integer; any
 * error of {@link resolveMemoryPath} or {@link readUtf8}.
 */
export async function readMemoryFile(
  workspace: string,
  requestedPath: string,
  options: ReadMemoryFileOptions = {},
): Promise<MemoryFileSlice> {
  const from = positiveInt("from", options.from, 1);
  const count = positiveInt("lines", options.lines, Number.POSITIVE_INFINITY);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const resolved = await resolveMemoryPath(workspace, requestedPath, {
    extraPaths: options.extraPaths ?? [],
  });
  let text: string;
  try {
    ({ text } = await readUtf8(resolved.absPath, { maxBytes }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new EngramError("FILE_NOT_FOUND", `memory file ${resolved.path} does not exist`, {
        hint: "search memory first and pass a path from a result",
        cause: error,
      });
    }
    throw error;
  }
  const all = splitLines(text);
  const totalLines = all.length;
  const endLine = Math.min(totalLines, from + count - 1);
  const slice = from > totalLines ? [] : all.slice(from - 1, endLine);
  return {
    path: resolved.path,
    text: slice.join("\n"),
    startLine: from,
    endLine: from > totalLines ? from - 1 : endLine,
    totalLines,
  };
}

/** Splits on `\n` (dropping a `\r` before it); a final newline does not start another line. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined || value === null) return fallback; // tool calls often send null
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${name} must be a whole number of at least 1, got ${String(value)}`,
      {
        hint: `pass ${name} as 1, 2, 3, …, or leave it out`,
      },
    );
  }
  return value;
}
