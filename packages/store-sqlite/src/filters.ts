import type { SearchFilter } from "@engram/core/driver";

/** A piece of SQL with its positional parameters. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * `AND …` conditions restricting rows of `alias` (a table with `tier`, `source` and, unless
 * `withPath` is false, `path` columns) to `filter`. Lists bind as one JSON parameter, so the SQL
 * text depends only on which fields are present and prepared statements can be reused. An empty
 * list matches nothing; an absent field does not restrict. `pathPrefix` is a plain,
 * case-sensitive string prefix (no LIKE wildcards).
 */
export function filterConditions(
  filter: SearchFilter | undefined,
  alias: string,
  withPath = true,
): SqlFragment {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter?.tiers) {
    parts.push(`AND ${alias}.tier IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.tiers));
  }
  if (filter?.sources) {
    parts.push(`AND ${alias}.source IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.sources));
  }
  if (withPath && filter?.pathPrefix) {
    // `path >= prefix` lets SQLite start at the prefix in the path index; substr decides.
    parts.push(`AND ${alias}.path >= ? AND substr(${alias}.path, 1, length(?)) = ?`);
    params.push(filter.pathPrefix, filter.pathPrefix, filter.pathPrefix);
  }
  return { sql: parts.join(" "), params };
}

/** True when the filter restricts by path prefix (which vec0 cannot do during KNN). */
export function hasPathPrefix(filter: SearchFilter | undefined): boolean {
  return Boolean(filter?.pathPrefix);
}
