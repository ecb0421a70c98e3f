import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { EngramError, isEngramError } from "../errors.js";

/** Curated long-term memory, at the workspace root. */
export const MEMORY_FILE = "MEMORY.md";
/** Folder holding daily logs and the tier folders. */
export const MEMORY_DIR = "memory";
/** engram's own state (index, locks); never indexed, never readable through `memory_get`. */
export const INDEX_DIR = ".engram";
/** Optional configuration file at the workspace root. */
export const CONFIG_FILE = "engram.config.json";

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAILY_LOG_RE = /^memory\/(\d{4}-\d{2}-\d{2})\.md$/;

/** True when `date` is `YYYY-MM-DD` and names a real calendar day. */
export function isValidDate(date: string): boolean {
  const m = DATE_RE.exec(date);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(y, mo - 1, d));
  probe.setUTCFullYear(y); // years < 100 would otherwise map to 19xx
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d;
}

/**
 * Workspace-relative POSIX path of the daily log for `date`: `memory/2026-01-02.md`, or in `dir`
 * (the layout's daily-log folder, e.g. `memory/logs`).
 *
 * @throws EngramError `INVALID_ARGUMENT` when `date` is not a real `YYYY-MM-DD` day.
 */
export function dailyLogPath(date: string, dir: string = MEMORY_DIR): string {
  if (typeof date !== "string" || !isValidDate(date)) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `"${String(date)}" is not a date in YYYY-MM-DD form`,
      {
        hint: 'pass a calendar date such as "2026-01-02"',
      },
    );
  }
  return `${dir}/${date}.md`;
}

/**
 * The date of a daily log path (`memory/2026-01-02.md` → `"2026-01-02"`), or `null` when `path`
 * (workspace-relative; a leading `./` is ignored) is not a daily log.
 */
export function isDailyLogPath(path: string): string | null {
  const m = DAILY_LOG_RE.exec(toPosix(path).replace(/^(?:\.\/)+/, ""));
  const date = m?.[1];
  return date !== undefined && isValidDate(date) ? date : null;
}

/** `path` with the platform separator replaced by `/` (a no-op on POSIX systems). */
export function toPosix(p: string): string {
  return path.sep === "/" ? p : p.split(path.sep).join("/");
}

/**
 * Checks that `workspace` is an existing directory and returns its absolute real path
 * (symlinks resolved), the form every other workspace function compares paths against.
 *
 * @throws EngramError `WORKSPACE_MISSING` when it does not exist or is not a directory.
 */
export async function assertWorkspace(workspace: string): Promise<string> {
  if (typeof workspace !== "string" || workspace.trim() === "") {
    throw new EngramError("WORKSPACE_MISSING", "no workspace folder was given", {
      hint: 'run "engram init" or pass --workspace',
    });
  }
  const abs = path.resolve(workspace);
  try {
    const st = await stat(abs);
    if (!st.isDirectory()) {
      throw new EngramError("WORKSPACE_MISSING", `workspace ${abs} is not a directory`, {
        hint: 'run "engram init" or pass --workspace',
      });
    }
    return await realpath(abs);
  } catch (error) {
    if (isEngramError(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const missing = code === "ENOENT" || code === "ENOTDIR";
    throw new EngramError(
      "WORKSPACE_MISSING",
      missing ? `workspace ${abs} does not exist` : `workspace ${abs} cannot be opened (${code})`,
      {
        hint: missing
          ? 'run "engram init" or pass --workspace'
          : "check the folder's permissions, or pass another --workspace",
        cause: error,
      },
    );
  }
}
