/** Run every step of a generator that yields between pages of work, now; return its result. */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Steps with nothing left to do: `value` was computed up front. */
// biome-ignore lint/correctness/useYield: there is no work to spread out, only a value to give
export function* ready<T>(value: T): Generator<void, T> {
  return value;
}
