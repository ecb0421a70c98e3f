import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { mkdir, open } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { looksSealed } from "../sealing/format.js";
import { type Clock, localDate, localTime, systemClock } from "./clock.js";
import { assertNoLinks, syncDir } from "./durable.js";
import { assertWorkspace, dailyLogPath, MEMORY_FILE, toPosix } from "./layout.js";
import { withWorkspaceLock } from "./lock.js";
import { indexKey, isInside, isLayoutMemoryPath, resolveAgainstWorkspace } from "./paths.js";

/** Where an appended entry landed, so the caller can cite it. */
export interface AppendResult {
  /** Workspace-relative POSIX path of the file. */
  path: string;
  /** 1-based line of the entry's `##` heading. */
  startLine: number;
  /** 1-based last line of the entry's text (the blank separator line after it is not counted). */
  endLine: number;
  /** True when this call created the file (with its `#` title). */
  created: boolean;
}

/** Options of {@link appendDailyLog}. */
export interface AppendDailyLogOptions {
  /** Source of the entry time and, unless `date` is given, of the day. Default: system clock. */
  clock?: Clock;
  /** Day of the log, `YYYY-MM-DD`. Default: the clock's local date. */
  date?: string;
  /** Folder of the daily logs (workspace-relative, under `memory/`). Default `memory`. */
  dir?: string;
}

/** Options of {@link appendLongTerm}. */
export interface AppendLongTermOptions {
  /** Source of the heading timestamp. Default: system clock. */
  clock?: Clock;
  /** Workspace-relative memory file to append to. Default `MEMORY.md`. */
  file?: string;
}

/**
 * Appends an entry to the daily log `memory/<date>.md`:
 * `## HH:MM`, a blank line, the text (leading blank lines and trailing whitespace removed), a blank
 * line. A missing log is created starting with `# YYYY-MM-DD` and a blank line; a log that does not
 * end with a newline gets one first. Existing bytes are never rewritten.
 *
 * Safe across processes: each entry is one `O_APPEND` write made under the workspace lock
 * `append:<path>`, so concurrent writers never interleave or lose entries.
 *
 * @throws EngramError `INVALID_ARGUMENT` for empty text or a bad `date`; `PATH_OUTSIDE_WORKSPACE`
 * when `memory/` or the log is a symbolic link; `LOCK_TIMEOUT`; `WORKSPACE_MISSING`.
 */
export async function appendDailyLog(
  workspace: string,
  text: string,
  options: AppendDailyLogOptions = {},
): Promise<AppendResult> {
  const body = entryBody(text);
  const now = (options.clock ?? systemClock).now();
  const date = options.date ?? localDate(now);
  const rel = dailyLogPath(date, options.dir);
  if (options.dir !== undefined && !isLayoutMemoryPath(rel)) {
    throw new EngramError("PATH_NOT_ALLOWED", `${rel} is not a memory file`, {
      hint: 'daily logs live under memory/ (e.g. dir "memory/logs")',
    });
  }
  return appendEntry(workspace, rel, `# ${date}\n\n`, `## ${localTime(now)}\n\n${body}\n\n`);
}

/**
 * Appends an entry to `MEMORY.md` (or `file`) under a `## YYYY-MM-DD HH:MM` heading, followed by a
 * blank line, the text and a blank line. A missing file is created starting with
 * `# Long-term Memory` and a blank line. Same append guarantees as {@link appendDailyLog}.
 *
 * `file` must be a memory file of the workspace layout (`MEMORY.md` or `memory/**\/*.md`).
 *
 * @throws EngramError `INVALID_ARGUMENT` for empty text; `PATH_OUTSIDE_WORKSPACE` when `file`
 * leaves the workspace or goes through a symbolic link; `PATH_NOT_ALLOWED` when it is not a memory
 * file; `LOCK_TIMEOUT`; `WORKSPACE_MISSING`.
 */
export async function appendLongTerm(
  workspace: string,
  text: string,
  options: AppendLongTermOptions = {},
): Promise<AppendResult> {
  const body = entryBody(text);
  const now = (options.clock ?? systemClock).now();
  const file = options.file ?? MEMORY_FILE;
  const given = path.resolve(workspace);
  // A relative file is judged lexically (no I/O before the lock queue: same-process calls keep
  // their order); an absolute one needs the real workspace path to compare against.
  const ws =
    typeof file === "string" && path.isAbsolute(file) ? await assertWorkspace(workspace) : given;
  const rel = memoryFileKey(ws, given, file);
  const heading = `## ${localDate(now)} ${localTime(now)}`;
  return appendEntry(workspace, rel, "# Long-term Memory\n\n", `${heading}\n\n${body}\n\n`);
}

function entryBody(text: string): string {
  const body = typeof text === "string" ? text.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd() : "";
  if (body === "") {
    throw new EngramError("INVALID_ARGUMENT", "nothing to append: the text is empty", {
      hint: "pass the text of the memory entry",
    });
  }
  return body;
}

/** Index key of a workspace memory file named by the caller, or a refusal. */
function memoryFileKey(ws: string, wsGiven: string, file: string): string {
  if (typeof file !== "string" || file.trim() === "" || file.includes("\0")) {
    throw new EngramError("INVALID_ARGUMENT", "file is empty or contains a NUL byte", {
      hint: 'pass a memory file such as "MEMORY.md" or "memory/long-term/decisions.md"',
    });
  }
  const abs = resolveAgainstWorkspace(ws, wsGiven, file);
  if (!isInside(ws, abs)) {
    throw new EngramError("PATH_OUTSIDE_WORKSPACE", `${toPosix(file)} is outside the workspace`, {
      hint: 'pass a workspace-relative memory file such as "MEMORY.md"',
    });
  }
  const rel = indexKey(ws, abs);
  if (!isLayoutMemoryPath(rel)) {
    throw new EngramError("PATH_NOT_ALLOWED", `${rel} is not a memory file`, {
      hint: "write to MEMORY.md or a .md file under memory/",
    });
  }
  return rel;
}

/**
 * The append itself. `rel` is a validated workspace-relative POSIX path; `title` is written only
 * when the file is new (or empty); `entry` ends with a blank line.
 */
function appendEntry(
  workspace: string,
  rel: string,
  title: string,
  entry: string,
): Promise<AppendResult> {
  const entryLines = countNewlines(entry) - 1; // the final blank separator line is not the entry's

  return withWorkspaceLock(workspace, `append:${rel}`, async () => {
    const ws = await assertWorkspace(workspace);
    const abs = path.join(ws, ...rel.split("/"));
    await assertNoLinks(ws, rel);
    await mkdir(path.dirname(abs), { recursive: true });

    // New file: title and first entry in one write; `wx` makes creation race-free.
    const created = await openIfNew(abs);
    if (created) {
      try {
        await writeAll(created, Buffer.from(title + entry, "utf8"));
        await created.datasync();
      } finally {
        await created.close();
      }
      await syncDir(path.dirname(abs));
      const start = countNewlines(title) + 1;
      return { path: rel, startLine: start, endLine: start + entryLines - 1, created: true };
    }

    // O_APPEND: every write lands at the end; O_NOFOLLOW: a link swapped in since the check fails.
    const handle = await open(abs, constants.O_RDWR | constants.O_APPEND | NOFOLLOW);
    try {
      await refuseSealed(handle, rel);
      const { newlines, size, endsWithNewline } = await scanLines(handle);
      const prefix = size === 0 ? title : endsWithNewline ? "" : "\n";
      const start = size === 0 ? countNewlines(title) + 1 : newlines + (endsWithNewline ? 1 : 2);
      await writeAll(handle, Buffer.from(prefix + entry, "utf8"));
      await handle.datasync();
      return { path: rel, startLine: start, endLine: start + entryLines - 1, created: false };
    } finally {
      await handle.close();
    }
  });
}

/**
 * Plaintext is never appended beside a sealed file's ciphertext: the caller must open the file
 * (see `sealing/`) and write through it.
 */
async function refuseSealed(handle: FileHandle, rel: string): Promise<void> {
  const head = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  if (looksSealed(head.subarray(0, bytesRead).toString("utf8"))) {
    throw new EngramError(
      "SEALED_FILE",
      `${rel} is sealed: nothing can be appended to it as it is`,
      {
        hint: "set ENGRAM_KEY or ENGRAM_KEY_FILE so engram can open it, or write somewhere else",
      },
    );
  }
}

/** `O_NOFOLLOW` where the platform has it (not on Windows). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Creates `abs` exclusively (`wx`: never through a symlink), or `null` when it already exists. */
async function openIfNew(abs: string): Promise<FileHandle | null> {
  try {
    return await open(abs, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw error;
  }
}

/** Counts `\n` in the file by reading it in chunks (never the whole file at once). */
async function scanLines(
  handle: FileHandle,
): Promise<{ newlines: number; size: number; endsWithNewline: boolean }> {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  let newlines = 0;
  let size = 0;
  let last = -1;
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, size);
    if (bytesRead === 0) break;
    for (let i = chunk.indexOf(10, 0); i !== -1 && i < bytesRead; i = chunk.indexOf(10, i + 1)) {
      newlines++;
    }
    last = chunk[bytesRead - 1] ?? -1;
    size += bytesRead;
  }
  return { newlines, size, endsWithNewline: last === 10 };
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  return n;
}
