import type { StatementCache } from "./statements.js";

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
 * The lifecycle of a connection's in-memory copy of some tables (the vectors, the keyword
 * postings): loaded on demand, kept in step with this connection's writes, reloaded after another
 * connection's.
 *
 * Every write transaction that changes the tables increments a counter in `meta` (`key`). The copy
 * is current while the counter still holds the value it was loaded or last updated at; this
 * connection's own changes are recorded as `Op`s and applied when their transaction commits.
 */
export class FollowedCopy<T, Op> {
  #cached: Cached<T> | undefined;
  #pending: Pending<Op> | undefined;

  /**
   * @param key Meta key of the generation counter.
   * @param apply Apply one committed transaction's changes to the copy; false drops the copy
   *   instead (it is reloaded, or found over budget, on the next search).
   */
  constructor(
    private readonly statements: StatementCache,
    private readonly key: string,
    private readonly apply: (copy: T, ops: readonly Op[]) => boolean,
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
   * The copy, loaded (by `load`, undefined when over budget) or reloaded when another connection
   * changed the tables since. Call inside a read transaction, so the counter read and the load see
   * one snapshot.
   */
  current(load: () => T | undefined): T | undefined {
    const dataVersion = this.statements.get("PRAGMA data_version").pluck().get() as number;
    const cached = this.#cached;
    if (cached?.dataVersion === dataVersion) return cached.copy;
    // Another connection committed something; reload only if it changed these tables.
    const generation = this.#generation();
    if (cached?.generation === generation) {
      cached.dataVersion = dataVersion;
      return cached.copy;
    }
    const copy = load();
    this.#cached = { copy, generation, dataVersion };
    return copy;
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

  #generation(): number {
    // Not `.pluck()`: statements are shared by SQL text, and pluck would stick to the store's own.
    const row = this.statements.get("SELECT value FROM meta WHERE key = ?").get(this.key) as
      | { value: string }
      | undefined;
    return row === undefined ? 0 : Number(row.value);
  }
}
