import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  EngramError,
  errorSummary,
  holderState,
  type LockHolder,
  storeFailedError,
  thisProcess,
} from "@engram/core/driver";
import Database from "better-sqlite3";
import { isInMemory } from "./connection.js";

// What SQLite's failures mean: the `EngramError` a user sees for each, and a damaged file moved
// aside for an empty index (the index is a cache of the Markdown files).

/** The first 16 bytes of every SQLite database file. */
const SQLITE_MAGIC = "SQLite format 3\0";
/** Damaged copies kept beside the index (older ones are removed). */
const KEEP_DAMAGED = 2;

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

/** What a damage error says, e.g. `database disk image is malformed (SQLITE_CORRUPT)`. */
export function damageReason(error: unknown): string {
  const code = isSqliteError(error) ? error.code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return code ? `${message} (${code})` : message;
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

/**
 * Whether engram may move the file at `path` aside on its own: it is engram's (inside an
 * `.engram` folder) or at least a SQLite database (its header says so). Anything else at a
 * configured path is left alone and reported, never moved.
 */
export function mayReplace(path: string): boolean {
  if (basename(dirname(path)) === ".engram") return true;
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    readSync(fd, head, 0, head.length, 0);
    return head.toString("latin1") === SQLITE_MAGIC;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Move the database at `path` (with its `-wal`) aside to `<name>.damaged-<time>`, drop its
 * `-shm`, and keep only the newest {@link KEEP_DAMAGED} damaged copies. Returns the new path, or
 * undefined when there was no file to move.
 */
export function moveAside(path: string, now = new Date()): string | undefined {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const target = `${path}.damaged-${stamp}`;
  try {
    renameSync(path, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  for (const suffix of ["-wal", "-journal"]) {
    try {
      renameSync(`${path}${suffix}`, `${target}${suffix}`);
    } catch {
      // none
    }
  }
  rmSync(`${path}-shm`, { force: true });
  pruneDamaged(path);
  return target;
}

function pruneDamaged(path: string): void {
  const dir = dirname(path);
  const prefix = `${basename(path)}.damaged-`;
  const copies = readdirSync(dir)
    .filter(
      (name) => name.startsWith(prefix) && !name.endsWith("-wal") && !name.endsWith("-journal"),
    )
    .sort()
    .reverse();
  for (const old of copies.slice(KEEP_DAMAGED)) {
    for (const suffix of ["", "-wal", "-journal"])
      rmSync(join(dir, `${old}${suffix}`), { force: true });
  }
}

/**
 * Every process that has the index open leaves a mark in `<index>.open/` and removes it when it
 * closes the store. A mark whose process is gone means that process never closed the index (it
 * was killed, or crashed): only then is the index worth a `quick_check` on open, so a clean
 * shutdown costs the next open nothing.
 */
export class OpenMarks {
  readonly #dir: string;
  #mine: string | undefined;

  constructor(indexPath: string) {
    this.#dir = `${indexPath}.open`;
  }

  /**
   * Remove the marks of processes that are gone; true when there was one (an unclean shutdown).
   * Marks of live processes, and of processes that cannot be checked from here, stay.
   */
  sweep(): boolean {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return false;
    }
    let unclean = false;
    for (const name of names) {
      const path = join(this.#dir, name);
      let holder: LockHolder | null = null;
      try {
        holder = JSON.parse(readFileSync(path, "utf8")) as LockHolder;
      } catch {
        // being written right now, or damaged: judged on the next open
        continue;
      }
      if (holderState(holder) !== "dead") continue;
      unclean = true;
      rmSync(path, { force: true });
    }
    return unclean;
  }

  /** Leave this process's mark (best effort: a read-only folder only costs the check). */
  mark(): void {
    if (this.#mine) return;
    const holder = thisProcess();
    const path = join(this.#dir, `${holder.pid}-${holder.token}.json`);
    try {
      mkdirSync(this.#dir, { recursive: true });
      writeFileSync(path, JSON.stringify(holder));
      this.#mine = path;
    } catch {
      // no mark: this process's crash would go unnoticed, which only skips a check
    }
  }

  /** Remove this process's mark (a clean close). */
  unmark(): void {
    if (!this.#mine) return;
    rmSync(this.#mine, { force: true });
    this.#mine = undefined;
  }
}
