import { EngramError } from "@engram/core/driver";
import Database from "better-sqlite3";

/** What the store was doing, for the error message. */
export interface FailureContext {
  /** Database file (or `:memory:`). */
  path: string;
  /** Short verb phrase: "open the index", "write", "search". */
  action: string;
}

/** The fix for a damaged or missing index: the index is a cache of the Markdown files. */
export function rebuildHint(path: string): string {
  if (path === ":memory:" || path === "") return "Recreate the in-memory store.";
  return `Delete ${path} (with its -wal and -shm files) or the whole .engram folder and run \`engram sync\`; the index is rebuilt from your Markdown files.`;
}

/** True for errors raised by SQLite itself (as opposed to our own EngramErrors or bugs). */
export function isSqliteError(error: unknown): error is InstanceType<typeof Database.SqliteError> {
  return error instanceof Database.SqliteError;
}

/**
 * Turn an error thrown by SQLite into an {@link EngramError} that names the problem and its fix.
 * EngramErrors pass through; anything else that is not a SQLite error is returned unchanged.
 */
export function toEngramError(error: unknown, context: FailureContext): unknown {
  if (!isSqliteError(error)) return error;
  const code = error.code ?? "SQLITE_ERROR";
  const where = context.path === ":memory:" ? "the in-memory index" : context.path;
  const fail = (problem: string, hint: string) =>
    new EngramError("STORE_FAILED", `Could not ${context.action}: ${problem} (${where}).`, {
      hint,
      cause: error,
    });

  if (code.startsWith("SQLITE_CONSTRAINT")) {
    return new EngramError("INVALID_ARGUMENT", `Could not ${context.action}: ${error.message}.`, {
      hint: "Chunk ids must be unique across the index; the same path, lines and text give the same id.",
      cause: error,
    });
  }
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") {
    return fail("the index file is damaged or not a SQLite database", rebuildHint(context.path));
  }
  if (code.startsWith("SQLITE_FULL")) {
    return fail("the disk is full", "Free some disk space, then run `engram sync` again.");
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return fail(
      "the index is locked by another process",
      "Wait for the other engram process (sync, watch) to finish, or stop it, and retry.",
    );
  }
  if (
    code.startsWith("SQLITE_READONLY") ||
    code.startsWith("SQLITE_CANTOPEN") ||
    code === "SQLITE_PERM" ||
    code === "SQLITE_AUTH"
  ) {
    return fail(
      `the index file cannot be opened for writing (${code})`,
      "Check that the folder exists and that this user may write to it and to the index file.",
    );
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return fail(
      `the disk reported an I/O error (${code})`,
      `Check the disk. If it keeps failing: ${rebuildHint(context.path)}`,
    );
  }
  return fail(`${error.message} (${code})`, rebuildHint(context.path));
}
