/**
 * Runs tasks one at a time, in call order. Every change the store makes goes through one queue:
 * LanceDB resolves concurrent commits to one table by retrying, but the store's own bookkeeping
 * (use counters, staleness counts) assumes one change at a time.
 */
export class Serial {
  #tail: Promise<unknown> = Promise.resolve();

  /** Run `task` after every task queued before it; its result or failure is returned. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every task queued so far has settled. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}
