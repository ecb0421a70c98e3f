import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { holderState, type LockHolder, thisProcess } from "@engram/core/driver";

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
