import type { SearchFilter } from "@engram/core/driver";

/**
 * SQL text for LanceDB `where` clauses (DataFusion dialect). Values are inlined as literals because
 * LanceDB filters take no parameters; {@link literal} makes any string safe to inline.
 */

/** A string as a SQL literal: single-quoted, quotes doubled (backslashes are not escapes here). */
export function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A column name quoted with backticks, so keywords like `source` or `text` are plain names. */
export function column(name: string): string {
  return `\`${name}\``;
}

/** `column = 'value'`. */
export function equals(name: string, value: string): string {
  return `${column(name)} = ${literal(value)}`;
}

/** `column IN ('a', 'b')` for a non-empty list (an empty list has no SQL form; callers check). */
export function isIn(name: string, values: readonly string[]): string {
  return `${column(name)} IN (${values.map(literal).join(", ")})`;
}

/** Conditions joined by AND; undefined when there are none. */
export function and(conditions: ReadonlyArray<string | undefined>): string | undefined {
  const present = conditions.filter((c): c is string => c !== undefined);
  return present.length ? present.map((c) => `(${c})`).join(" AND ") : undefined;
}

/** A where clause for a search filter: no restriction, a condition, or "matches nothing". */
export type FilterWhere = { kind: "all" } | { kind: "none" } | { kind: "where"; sql: string };

/**
 * The chunks a {@link SearchFilter} keeps, as a `where` clause over the chunk columns `tier`,
 * `source` and `path`. An empty tier or source list matches nothing; absent fields and an empty
 * path prefix do not restrict. The path prefix is a plain, case-sensitive string prefix
 * (`starts_with`, so `%` and `_` are ordinary characters).
 */
export function filterWhere(filter: SearchFilter | undefined): FilterWhere {
  if (filter?.tiers?.length === 0 || filter?.sources?.length === 0) return { kind: "none" };
  const sql = and([
    filter?.tiers ? isIn("tier", filter.tiers) : undefined,
    filter?.sources ? isIn("source", filter.sources) : undefined,
    filter?.pathPrefix
      ? `starts_with(${column("path")}, ${literal(filter.pathPrefix)})`
      : undefined,
  ]);
  return sql === undefined ? { kind: "all" } : { kind: "where", sql };
}

/**
 * The columns {@link filterWhere} tests by value. Each gets a bitmap index, so a filtered search
 * looks its rows up instead of reading both columns of every row (measured at 10,000 chunks: a
 * filtered BM25 query 4.5 → 3.1 ms, a filtered exact vector query 15.8 → 11.3 ms). New rows are
 * scanned until the next optimize merges them in.
 */
export const FILTER_COLUMNS = ["tier", "source"] as const;
