import path from "node:path";
import type { Memory, SyncReport, Watcher } from "@engram/core";

/** What the page is told as it happens. */
export type LiveEvent =
  /** Files changed on disk (an agent's write, an editor, this page's own apply). */
  | { type: "changed"; paths: string[] }
  /** The index caught up with the files. */
  | { type: "synced"; added: number; updated: number; removed: number; finishedAt: string };

/** How long change events are gathered before the page is told (one event per burst). */
const BURST_MS = 250;

/**
 * Fans the workspace's changes out to every open page (over SSE). The changes come from core's
 * watcher (`Memory.watch`): file events as they happen, and each sync it runs after them.
 */
export class LiveEvents {
  readonly #listeners = new Set<(event: LiveEvent) => void>();
  #pending = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #watcher: Watcher | undefined;
  /** A watcher start waiting for its moment ({@link LiveEvents.watchLater}). */
  #pendingStart: { timer: NodeJS.Timeout | undefined; settle: () => void } | undefined;
  #closed = false;

  /** Call `listener` for every event until the returned function is called. */
  subscribe(listener: (event: LiveEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Open pages now. */
  get listeners(): number {
    return this.#listeners.size;
  }

  /** Say that `paths` changed (gathered with others for {@link BURST_MS}). */
  changed(...paths: string[]): void {
    for (const p of paths) this.#pending.add(p);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      const list = [...this.#pending].sort();
      this.#pending = new Set();
      this.#emit({ type: "changed", paths: list });
    }, BURST_MS);
  }

  /**
   * Start core's watcher on `memory`: `onChange` runs for each file event (before the listeners
   * hear of it), and each sync the watcher runs is announced.
   */
  async watch(memory: Memory, onChange: () => void): Promise<void> {
    if (this.#closed) return;
    const watcher = memory.watch({
      onChange: (_event, file) => {
        onChange();
        this.changed(path.isAbsolute(file) ? toIndexPath(memory.workspace, file) : file);
      },
      onSync: (report: SyncReport) => {
        onChange();
        this.#emit({
          type: "synced",
          added: report.added,
          updated: report.updated,
          removed: report.removed,
          finishedAt: report.finishedAt,
        });
      },
      onError: () => {
        // The watcher keeps going and reports through its heartbeat (shown on the health page).
      },
    });
    this.#watcher = watcher;
    return watcher.ready;
  }

  /**
   * {@link LiveEvents.watch}, later: `graceMs` after the first page was served (call
   * `pageServed`), or `idleMs` from now if no page comes. The watcher's first crawl of a large
   * workspace takes seconds and slows every request while it runs. `ready` resolves once the
   * watcher delivers changes (or it failed to start, or the events were closed first).
   */
  watchLater(
    memory: Memory,
    onChange: () => void,
    timing: { graceMs: number; idleMs: number },
  ): { ready: Promise<void>; pageServed(): void } {
    let settle: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      settle = resolve;
    });
    let served = false;
    const pending = { timer: undefined as NodeJS.Timeout | undefined, settle };
    const start = () => {
      if (this.#pendingStart !== pending) return;
      this.#pendingStart = undefined;
      this.watch(memory, onChange)
        .catch(() => {
          // Reported through the watcher's heartbeat (the health page); the page still serves.
        })
        .then(settle);
    };
    pending.timer = setTimeout(start, timing.idleMs);
    this.#pendingStart = pending;
    return {
      ready,
      pageServed: () => {
        if (served || this.#pendingStart !== pending) return;
        served = true;
        clearTimeout(pending.timer);
        pending.timer = setTimeout(start, timing.graceMs);
      },
    };
  }

  /** Stop the watcher (or its pending start) and drop pending events. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pendingStart) {
      clearTimeout(this.#pendingStart.timer);
      this.#pendingStart.settle();
      this.#pendingStart = undefined;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
    await this.#watcher?.close();
  }

  #emit(event: LiveEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // one broken stream does not stop the others
      }
    }
  }
}

function toIndexPath(workspace: string, abs: string): string {
  const rel = path.relative(workspace, abs);
  return rel.startsWith("..") ? abs.split(path.sep).join("/") : rel.split(path.sep).join("/");
}
