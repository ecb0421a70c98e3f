/**
 * Keeps long runs of synchronous file-system calls from holding the event loop. Synchronous fs
 * calls are several times faster than their promise forms for many small calls (measured: 10k
 * lstat ≈ 60 ms sync vs 250–800 ms async; 120 small JSON files read ≈ 4 ms sync vs 36 ms one
 * `readFile` after another), but a process that serves others (an agent, a watcher, an MCP
 * server) must get a turn now and then: every {@link Pacer.budget} operations, {@link tick}
 * yields once with `setImmediate`.
 */
export class Pacer {
  static readonly budget = 2000;
  private count = 0;

  /** Count `n` operations; a promise to await when it is time to yield, else undefined. */
  tick(n: number): Promise<void> | undefined {
    this.count += n;
    if (this.count < Pacer.budget) return undefined;
    this.count = 0;
    return new Promise((resolve) => setImmediate(resolve));
  }
}
