import { EngramError, errorSummary, type MoveAside, storeFailedError } from "@engram/core/driver";
import Database from "better-sqlite3";
import { isInMemory } from "./connection.js";

// What SQLite's failures mean: the `EngramError` a user sees for each, and which show the file
// damaged (then moved aside for an empty index with core's helpers: it is a cache of the files).

/** The first 16 bytes of every SQLite database file (core's `mayReplace` checks for it). */
export const SQLITE_MAGIC = "SQLite format 3\0";

/** A damaged file moves aside with its log (core's `moveAside`); its shared memory goes. */
export const SQLITE_FILES: MoveAside = { companions: ["-wal", "-journal"], drop: ["-shm"] };

/** Damage found by a check rather than by a failing statement (e.g. {@link quickCheck}). */
export class IndexDamage extends Error {
  override readonly name = "IndexDamage";
}

/** The fix for a damaged or missing index: the index is a cache of the Markdown files. */
export function rebuildHint(path: string): string {
  if (isInMemory(path)) return "Recreate the in-memory store.";
  return `Delete ${path} (with its -wal and -shm files) or the whole .engram folder and run \`engram sync\`; the index is rebuilt from your Markdown files.`;
}

/** True for errors raised by SQLite itself (as opposed to our own EngramErrors or bugs). */
function isSqliteError(error: unknown): error is InstanceType<typeof Database.SqliteError> {
  return error instanceof Database.SqliteError;
}

/**
 * The `EngramError` for an error SQLite threw while doing `action` (`STORE_FAILED` naming the
 * problem and its fix; a chunk id another file holds is `INVALID_ARGUMENT`), or undefined for
 * anything else, which passes as it is.
 */
export function sqliteFailure(error: unknown, action: string, path: string): unknown {
  const damaged = isDamage(error);
  if (!damaged && !isSqliteError(error)) return undefined;
  const code = isSqliteError(error) ? (error.code ?? "SQLITE_ERROR") : "";
  const fail = (problem: string, hint: string) =>
    storeFailedError({
      action,
      problem,
      hint,
      cause: error,
      where: isInMemory(path) ? "the in-memory index" : path,
    });
  if (code.startsWith("SQLITE_CONSTRAINT")) {
    return new EngramError("INVALID_ARGUMENT", `Could not ${action}: ${errorSummary(error)}.`, {
      hint: "Chunk ids must be unique across the index; the same path, lines and text give the same id.",
      cause: error,
    });
  }
  if (damaged) {
    return fail("the index file is damaged or not a SQLite database", rebuildHint(path));
  }
  if (/^SQLITE_FULL/.test(code)) {
    return fail("the disk is full", "Free some disk space, then run `engram sync` again.");
  }
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) {
    return fail(
      "the index is locked by another process",
      "Wait for the other engram process (sync, watch) to finish, or stop it, and retry.",
    );
  }
  if (/^SQLITE_(READONLY|CANTOPEN|PERM$|AUTH$)/.test(code)) {
    return fail(
      `the index file cannot be opened for writing (${code})`,
      "Check that the folder exists and that this user may write to it and to the index file.",
    );
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return fail(
      `the disk reported an I/O error (${code})`,
      `Check the disk. If it keeps failing: ${rebuildHint(path)}`,
    );
  }
  return fail(`${errorSummary(error)} (${code})`, rebuildHint(path));
}

/** True for SQLite errors that mean the file is damaged or is not a database at all. */
export function isDamage(error: unknown): boolean {
  if (error instanceof IndexDamage) return true;
  if (!isSqliteError(error)) return false;
  const code = error.code ?? "";
  return code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB";
}

/**
 * SQLite's `quick_check` (every page and index entry is readable and well-formed; O(N), without
 * the cross-checks of `integrity_check`). Returns null when it passes, else its first complaint.
 */
export function quickCheck(db: Database.Database): string | null {
  const rows = db.pragma("quick_check(3)") as Array<{ quick_check: string }>;
  const first = rows[0]?.quick_check;
  return first === undefined || first === "ok" ? null : `quick_check: ${first}`;
}
