import type { Statement } from "better-sqlite3";

/**
 * The rows of `statement` (`SELECT key, … WHERE key > ? ORDER BY key LIMIT ?`, the key an integer
 * such as the rowid), a page of at most `size` rows per execution. No statement is left iterating
 * between pages, so the caller may run others in between (better-sqlite3 allows none while one
 * iterates) or stop between turns of the event loop, without holding every row in memory.
 */
export function* keysetPages<Row extends [number, ...unknown[]]>(
  statement: Statement,
  size: number,
): Generator<Row[]> {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const page = statement.raw().all(after, size) as Row[];
    const last = page[page.length - 1];
    if (!last) return;
    yield page;
    if (page.length < size) return;
    after = last[0];
  }
}

/** {@link keysetPages}, row by row. */
export function* inPages<Row extends [number, ...unknown[]]>(
  statement: Statement,
  size = 4096,
): Generator<Row> {
  for (const page of keysetPages<Row>(statement, size)) yield* page;
}
