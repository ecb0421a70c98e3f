import {
  closeSync,
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

// Helpers for a store kept in one file, which is a cache of the Markdown files: a damaged one is
// moved aside for an empty index, and a process that never closed it is noticed.

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
