import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { holderState, type LockHolder, thisProcess } from "../workspace/lock-holder.js";
import { storeFailedError } from "./failures.js";
import type { StoreRecovery } from "./recovery.js";
import { storeNotInitialisedError } from "./state-errors.js";

// A store kept in one file, which is a cache of the Markdown files: a damaged one is moved aside
// for an empty index, and a process that never closed it is noticed (see `IndexFile`).

/** What {@link IndexFile} needs of a store's backend. */
export interface IndexFileBackend<Connection> {
  /** The file. */
  readonly path: string;
  /** False for a backend in memory: nothing to check, replace or mark. */
  readonly persistent: boolean;
  /** The store as messages name it, e.g. `SQLite store`. */
  readonly name: string;
  /** The first bytes of every file of the backend (see {@link mayReplace}). */
  readonly magic: string;
  /** The files beside it that move with it or go (see {@link moveAside}). */
  readonly files?: MoveAside;
  /**
   * Open the file (creating it). `check`: a process that had it open never closed it, so look
   * for damage first. Throws what it meets, damage included.
   */
  connect(check: boolean): Connection;
  /** Close a connection (a damaged or vanished file may refuse: the caller ignores it then). */
  disconnect(connection: Connection): void;
  /** True for an error that shows the file damaged. */
  isDamage(error: unknown): boolean;
  /** Leave `recovery` in the new, empty index for the next sync (under `RECOVERY_META_KEY`). */
  note(connection: Connection, recovery: StoreRecovery): void;
}

/**
 * The connection to a store's file, which heals itself: a damaged file engram may replace (one in
 * an `.engram` folder, or one with the backend's header) is moved aside and an empty index
 * started, with a {@link StoreRecovery} note, on open or by {@link refresh} after a call met the
 * damage; a file deleted or replaced since it was opened is opened again by {@link refresh}; after
 * a process that had it open never closed it, `connect` is asked to check it ({@link OpenMarks}).
 */
export class IndexFile<Connection> {
  #connection: Connection | undefined;
  /** `dev:ino` of the file the connection has open, to notice it being deleted or replaced. */
  #identity: string | undefined;
  /** Set when a call found the file damaged: {@link refresh} replaces it. */
  #damaged: { reason: string; error: unknown } | undefined;
  readonly #marks: OpenMarks;

  constructor(private readonly backend: IndexFileBackend<Connection>) {
    this.#marks = new OpenMarks(backend.path);
  }

  /** Open (creating) the file, replacing it when it is damaged. Its folder must exist. */
  open(): void {
    const { persistent, path } = this.backend;
    if (persistent && !existsSync(dirname(path))) {
      throw storeFailedError({
        action: "open the index",
        problem: `the folder ${dirname(path)} does not exist`,
        where: path,
        hint: "Check that the folder exists and that this user may write to it and to the index file.",
      });
    }
    const unclean = persistent && this.#marks.sweep();
    const before = persistent ? fileIdentity(path) : undefined;
    try {
      this.#connect(unclean);
    } catch (error) {
      if (!persistent || !this.backend.isDamage(error)) throw error;
      this.#recover(damageReason(error), error, before);
    }
    if (persistent) this.#marks.mark();
  }

  /**
   * Reopen the file when it was deleted or replaced since it was opened (e.g. `.engram/` removed
   * while `engram watch` runs, or another process moved a damaged one aside), and replace a file
   * found damaged since. True when the store now holds other data.
   */
  refresh(): boolean {
    if (!this.backend.persistent) return false;
    if (this.#damaged && this.#connection !== undefined) {
      const { reason, error } = this.#damaged;
      this.#recover(reason, error, this.#identity);
      return true;
    }
    if (this.#connection !== undefined && fileIdentity(this.backend.path) === this.#identity) {
      return false;
    }
    this.#disconnect();
    this.#marks.unmark(); // it may have gone with the folder: leave a new one
    // Its folder went with it (`rm -rf .engram`): it existed when the store opened, so restore it.
    mkdirSync(dirname(this.backend.path), { recursive: true });
    this.open();
    return true;
  }

  /** Close the connection and remove this process's open mark. */
  close(): void {
    const connection = this.#connection;
    this.#connection = undefined;
    try {
      if (connection !== undefined) this.backend.disconnect(connection);
    } finally {
      this.#marks.unmark();
    }
  }

  /** Run `fn` on the connection; an error that shows the file damaged is kept for {@link refresh}. */
  use<T>(action: string, fn: (connection: Connection) => T): T {
    const connection = this.#connection;
    // None after a failed reopen (the kit calls the driver only while the store is open).
    if (connection === undefined) throw storeNotInitialisedError(this.backend.name, action);
    try {
      return fn(connection);
    } catch (error) {
      if (this.backend.persistent && this.backend.isDamage(error)) {
        this.#damaged ??= { reason: damageReason(error), error };
      }
      throw error;
    }
  }

  #connect(check: boolean): Connection {
    const connection = this.backend.connect(check);
    this.#connection = connection;
    this.#identity = this.backend.persistent ? fileIdentity(this.backend.path) : undefined;
    this.#damaged = undefined;
    return connection;
  }

  /**
   * Replace the damaged file (found as `found`, its identity then) with an empty index and leave a
   * note saying so. When another process replaced it meanwhile, only reconnect to its new one. A
   * file engram may not replace is reported as before, untouched.
   */
  #recover(reason: string, error: unknown, found: string | undefined): void {
    const { path, magic, files } = this.backend;
    this.#disconnect();
    if (!mayReplace(path, magic)) throw error;
    const replacedMeanwhile = found !== undefined && fileIdentity(path) !== found;
    const movedTo = replacedMeanwhile ? undefined : moveAside(path, files);
    const connection = this.#connect(false);
    if (replacedMeanwhile) return;
    const at = new Date().toISOString();
    this.backend.note(connection, { at, reason, ...(movedTo ? { movedTo } : {}) });
  }

  /** Close the connection (if any) without closing the store. */
  #disconnect(): void {
    const connection = this.#connection;
    this.#connection = undefined;
    try {
      if (connection !== undefined) this.backend.disconnect(connection);
    } catch {
      // a damaged or vanished file may refuse a clean close; the handle is gone either way
    }
  }
}

/** What a damage error says, e.g. `database disk image is malformed (SQLITE_CORRUPT)`. */
function damageReason(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${message} (${code})` : message;
}

/** `dev:ino` of the file at `path`, or `missing`: whether it was deleted or replaced since. */
export function fileIdentity(path: string): string {
  const info = statSync(path, { throwIfNoEntry: false });
  return info ? `${info.dev}:${info.ino}` : "missing";
}

/**
 * Whether engram may move the file at `path` aside on its own: it is engram's (inside an
 * `.engram` folder) or at least starts with `magic`, the header of the backend's files. Anything
 * else at a configured path is left alone and reported, never moved.
 */
export function mayReplace(path: string, magic: string): boolean {
  if (basename(dirname(path)) === ".engram") return true;
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = Buffer.alloc(magic.length);
    readSync(fd, head, 0, head.length, 0);
    return head.toString("latin1") === magic;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** How {@link moveAside} treats the files beside the index (`<path><suffix>`). */
export interface MoveAside {
  /** Suffixes of files that move with it (e.g. a write-ahead log: `-wal`). */
  companions?: readonly string[];
  /** Suffixes of files removed instead (e.g. shared memory: `-shm`). */
  drop?: readonly string[];
  /** Damaged copies kept beside the index, newest first (default 2). */
  keep?: number;
}

/**
 * Move the file at `path` (with its companions) aside to `<name>.damaged-<time>`, drop the files
 * of `drop`, and keep only the newest damaged copies. Returns the new path, or undefined when
 * there was no file to move.
 */
export function moveAside(path: string, how: MoveAside = {}, now = new Date()): string | undefined {
  const { companions = [], drop = [], keep = 2 } = how;
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
  for (const suffix of companions) {
    try {
      renameSync(`${path}${suffix}`, `${target}${suffix}`);
    } catch {
      // none
    }
  }
  for (const suffix of drop) rmSync(`${path}${suffix}`, { force: true });
  const dir = dirname(path);
  const prefix = `${basename(path)}.damaged-`;
  const copies = readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && !companions.some((s) => name.endsWith(s)))
    .sort()
    .reverse();
  for (const old of copies.slice(keep)) {
    for (const suffix of ["", ...companions]) rmSync(join(dir, `${old}${suffix}`), { force: true });
  }
  return target;
}

/**
 * Every process that has the index open leaves a mark in `<index>.open/` and removes it when it
 * closes the store. A mark whose process is gone means that process never closed the index (it
 * was killed, or crashed): only then is the index worth checking on open, so a clean shutdown
 * costs the next open nothing.
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
        continue; // being written right now, or damaged: judged on the next open
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
