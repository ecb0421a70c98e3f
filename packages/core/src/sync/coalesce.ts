/**
 * Single-flight with one follow-up: while a run is in flight, every new request joins ONE queued
 * run that starts when the current one ends (its options merged). A caller therefore always gets
 * a run that started after its call — no change made before calling is missed — and a burst of
 * requests costs at most two runs.
 */
export class Coalescer<O, R> {
  #running: Promise<R> | undefined;
  #queued: { options: O; promise: Promise<R> } | undefined;

  constructor(
    private readonly run: (options: O) => Promise<R>,
    private readonly merge: (a: O, b: O) => O,
  ) {}

  /** True while a run is in flight. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Resolves when nothing is running or queued (failures are ignored here). */
  async settled(): Promise<void> {
    while (this.#running || this.#queued) {
      await (this.#queued?.promise ?? this.#running)?.catch(() => undefined);
    }
  }

  request(options: O): Promise<R> {
    if (this.#queued) {
      this.#queued.options = this.merge(this.#queued.options, options);
      return this.#queued.promise;
    }
    if (!this.#running) return this.#start(options);
    const queued: { options: O; promise: Promise<R> } = {
      options,
      promise: this.#running
        .catch(() => undefined)
        .then((): Promise<R> => {
          this.#queued = undefined;
          return this.#start(queued.options);
        }),
    };
    this.#queued = queued;
    return queued.promise;
  }

  #start(options: O): Promise<R> {
    const promise = this.run(options).finally(() => {
      if (this.#running === promise) this.#running = undefined;
    });
    this.#running = promise;
    return promise;
  }
}
