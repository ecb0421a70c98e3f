import type { StatementCache } from "./statements.js";
import { drain } from "./steps.js";

/** A loaded copy and the generation and `data_version` it was last known current at. */
interface Cached<T> {
  /** undefined: the tables did not fit the copy's memory budget at this generation. */
  copy: T | undefined;
  generation: number;
  dataVersion: number;
}

/** Changes of the open write transaction, applied to the copy once it commits. */
interface Pending<Op> {
  before: number;
  ops: Op[];
  /** The tables were emptied or recreated: the copy cannot follow, it is dropped. */
  reset: boolean;
}

/**
 * A load that has begun: what it read up front (in the caller's read transaction) told it how
 * many `rows` it will read; `steps` reads them, yielding between pages, and returns the copy
 * (undefined: over the memory budget after all).
 */
export interface CopyLoad<T> {
  rows: number;
  steps: Generator<void, T | undefined>;
}

/** A load running in the background, valid while the tables stay at `generation`. */
interface Job<T> {
  generation: number;
  steps: Generator<void, T | undefined>;
  /** Resolves when the job ends (kept, overtaken or cancelled). */
  ended: Promise<void>;
  end: () => void;
  /** The next slice, scheduled. */
  next?: NodeJS.Immediate;
}

/**
 * Rows above which a copy loads in the background by default: ~15–30 µs a row, so a larger load
 * would hold up the search that starts it by more than ~50 ms (100k rows take 1.5–3 s).
 */
export const BACKGROUND_LOAD_ROWS = 2000;

/** Longest stretch of loading between two turns of the event loop (ms). */
const SLICE_MS = 10;
/** Wait before a background load starts again after one was overtaken by a write (ms), doubling. */
const RETRY_MS = 250;
const MAX_RETRY_MS = 60_000;

/**
 * The lifecycle of a connection's in-memory copy of some tables (the vectors, the keyword
 * postings): loaded on demand, kept in step with this connection's writes, reloaded after another
 * connection's.
 *
 * A load of more than `backgroundAbove` rows (a large index: ~3 s for the postings of 100k
 * chunks) runs in the background, ~10 ms at a time between turns of the event loop, while the
 * tables themselves answer searches; so no search waits for it. It is kept only if no write
 * changed the tables meanwhile; otherwise it starts again on a later search, after a pause that
 * doubles while writes keep overtaking it.
 *
 * Every write transaction that changes the tables increments a counter in `meta` (`key`). The copy
 * is current while the counter still holds the value it was loaded or last updated at; this
 * connection's own changes are recorded as `Op`s and applied when their transaction commits.
 */
export class FollowedCopy<T, Op> {
  #cached: Cached<T> | undefined;
  #pending: Pending<Op> | undefined;
  #job: Job<T> | undefined;
  /** No background load starts before this time (`performance.now()`). */
  #retryAt = 0;
  #retryMs = RETRY_MS;
  /** Callers awaiting {@link settled}: while there are any, the slices keep the process alive. */
  #awaiting = 0;

  /**
   * @param key Meta key of the generation counter.
   * @param apply Apply one committed transaction's changes to the copy; false drops the copy
   *   instead (it is reloaded, or found over budget, on the next search).
   * @param backgroundAbove Loads of more rows than this run in the background.
   */
  constructor(
    private readonly statements: StatementCache,
    private readonly key: string,
    private readonly apply: (copy: T, ops: readonly Op[]) => boolean,
    private readonly backgroundAbove = Number.POSITIVE_INFINITY,
  ) {}

  /** Record a change of the open write transaction (the first one increments the counter). */
  log(op: Op): void {
    const pending = this.#changed();
    // Without a loaded copy there is nothing to update: only the counter matters.
    if (this.#cached?.copy !== undefined) pending.ops.push(op);
  }

  /** The open write transaction emptied or recreated the tables. */
  reset(): void {
    this.#changed().reset = true;
  }

  /**
   * Call after the write transaction committed: the copy takes its changes when it was current
   * before it, else it is dropped.
   */
  committed(): void {
    const pending = this.#pending;
    this.#pending = undefined;
    const cached = this.#cached;
    if (!pending || !cached) return;
    const { copy } = cached;
    if (
      !pending.reset &&
      cached.generation === pending.before &&
      copy &&
      this.#applied(copy, pending.ops)
    ) {
      cached.generation = pending.before + 1;
    } else {
      this.#cached = undefined;
    }
  }

  /** Call after the write transaction rolled back: its changes never happened. */
  rolledBack(): void {
    this.#pending = undefined;
  }

  /**
   * The copy when it is current. Otherwise a load begins (`load`; undefined when the tables are
   * over budget): a small one runs now and its copy is returned; a large one continues in the
   * background and, like a load already under way, gives undefined meanwhile (answer from the
   * tables). Call inside a read transaction, so the counter read and the load's first reads see
   * one snapshot.
   */
  current(load: () => CopyLoad<T> | undefined): T | undefined {
    const dataVersion = this.#dataVersion();
    const cached = this.#cached;
    if (cached?.dataVersion === dataVersion) return cached.copy;
    // Another connection committed something; reload only if it changed these tables.
    const generation = this.#generation();
    if (cached?.generation === generation) {
      cached.dataVersion = dataVersion;
      return cached.copy;
    }
    this.#cached = undefined;
    if (this.#job?.generation === generation || performance.now() < this.#retryAt) return undefined;
    const begun = load();
    if (begun && begun.rows > this.backgroundAbove) {
      let end = () => {};
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      this.#start({ generation, steps: begun.steps, ended, end });
      return undefined;
    }
    const copy = begun && drain(begun.steps);
    this.#cached = { copy, generation, dataVersion };
    return copy;
  }

  /**
   * Resolves when no background load is running. A load alone does not keep the process alive
   * (a script that searched twice can exit); awaiting this does, until the load ends.
   */
  async settled(): Promise<void> {
    this.#awaiting++;
    try {
      for (let job = this.#job; job; job = this.#job) {
        job.next?.ref();
        await job.ended;
      }
    } finally {
      this.#awaiting--;
    }
  }

  /** Stop a background load (the connection is closing). */
  cancel(): void {
    this.#job?.end();
    this.#job = undefined;
  }

  /** Run `job` a slice at a time; keep its copy if the tables are still at its generation. */
  #start(job: Job<T>): void {
    this.#job = job;
    const slice = () => {
      if (this.#job !== job) {
        job.end(); // cancelled, or replaced by a load of a later generation
        return;
      }
      let finished: { copy: T | undefined } | undefined;
      let overtaken = this.#generation() !== job.generation;
      try {
        for (const until = performance.now() + SLICE_MS; !overtaken; ) {
          const step = job.steps.next();
          if (step.done) finished = { copy: step.value };
          if (step.done || performance.now() >= until) break;
        }
      } catch {
        overtaken = true; // the rows changed under the load (another connection wrote)
      }
      // Checked after the last read: a write since the load began changed what it read.
      overtaken ||= this.#generation() !== job.generation;
      if (!overtaken && !finished) {
        schedule();
        return;
      }
      this.#job = undefined;
      job.end();
      if (finished && !overtaken) {
        const dataVersion = this.#dataVersion();
        this.#cached = { copy: finished.copy, generation: job.generation, dataVersion };
        this.#retryMs = RETRY_MS;
      } else {
        this.#retryAt = performance.now() + this.#retryMs;
        this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
      }
    };
    const schedule = () => {
      job.next = setImmediate(slice);
      if (this.#awaiting === 0) job.next.unref();
    };
    schedule();
  }

  /** Apply committed changes; false (drop the copy) if `apply` refuses or fails: the write stands. */
  #applied(copy: T, ops: readonly Op[]): boolean {
    try {
      return this.apply(copy, ops);
    } catch {
      return false;
    }
  }

  #changed(): Pending<Op> {
    if (!this.#pending) {
      const before = this.#generation();
      this.statements
        .get(
          "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .run(this.key, String(before + 1));
      this.#pending = { before, ops: [], reset: false };
    }
    return this.#pending;
  }

  #dataVersion(): number {
    return this.statements.get("PRAGMA data_version").pluck().get() as number;
  }

  #generation(): number {
    // Not `.pluck()`: statements are shared by SQL text, and pluck would stick to the store's own.
    const row = this.statements.get("SELECT value FROM meta WHERE key = ?").get(this.key) as
      | { value: string }
      | undefined;
    return row === undefined ? 0 : Number(row.value);
  }
}
