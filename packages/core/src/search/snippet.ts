import type { StoredChunk } from "../driver/records.js";

/** The part of a chunk a result shows, with the exact lines it covers. */
export interface Snippet {
  text: string;
  startLine: number;
  endLine: number;
}

/**
 * Cut the snippet a result shows: the window of whole lines of `chunk`, at most `maxChars` long,
 * that holds the most distinct query terms, then widened with neighbouring lines while they fit.
 * The reported line range is exactly the lines shown, so a caller can cite or `get` them.
 *
 * `termsOf` must be the analyzer used for the query, so "matches" mean the same thing as in BM25.
 * `termWeights` (e.g. from `lineTermWeights`) makes a rare term count for more than a common one;
 * without it every distinct query term on a line counts 1.
 */
export function cutSnippet(
  chunk: Pick<StoredChunk, "text" | "startLine" | "endLine">,
  queryTerms: ReadonlySet<string>,
  termsOf: (text: string) => string[],
  maxChars: number,
  termWeights?: ReadonlyMap<string, number>,
): Snippet {
  const lines = chunk.text.split("\n");
  if (chunk.text.length <= maxChars) return trimBlankEdges(lines, chunk.startLine);

  const weights = lines.map((line) => {
    if (queryTerms.size === 0 || line.trim() === "") return 0;
    let hits = 0;
    for (const term of new Set(termsOf(line))) {
      if (queryTerms.has(term)) hits += termWeights?.get(term) ?? 1;
    }
    return hits;
  });

  // Best window under the budget (two pointers; lengths count the joining newlines).
  let best = { from: 0, to: -1, weight: -1 };
  let from = 0;
  let chars = -1;
  let weight = 0;
  for (let to = 0; to < lines.length; to++) {
    chars += (lines[to]?.length ?? 0) + 1;
    weight += weights[to] ?? 0;
    while (chars > maxChars && from <= to) {
      chars -= (lines[from]?.length ?? 0) + 1;
      weight -= weights[from] ?? 0;
      from++;
    }
    if (from <= to && weight > best.weight) best = { from, to, weight };
  }

  if (best.to < 0) {
    // No single line fits: show the best line, cut around its first match.
    const index = weights.indexOf(Math.max(...weights));
    const line = lines[index] ?? "";
    return {
      text: cutLine(line, queryTerms, maxChars),
      startLine: chunk.startLine + index,
      endLine: chunk.startLine + index,
    };
  }

  // Widen with neighbours while they fit: context helps the reader and costs nothing.
  let { from: start, to: end } = best;
  let used = lines.slice(start, end + 1).join("\n").length;
  for (let grew = true; grew; ) {
    grew = false;
    const next = lines[end + 1];
    if (next !== undefined && used + next.length + 1 <= maxChars) {
      end++;
      used += next.length + 1;
      grew = true;
    }
    const prev = lines[start - 1];
    if (prev !== undefined && used + prev.length + 1 <= maxChars) {
      start--;
      used += prev.length + 1;
      grew = true;
    }
  }
  return trimBlankEdges(lines.slice(start, end + 1), chunk.startLine + start);
}

function trimBlankEdges(lines: string[], firstLine: number): Snippet {
  let start = 0;
  let end = lines.length - 1;
  while (start < end && (lines[start] ?? "").trim() === "") start++;
  while (end > start && (lines[end] ?? "").trim() === "") end--;
  return {
    text: lines.slice(start, end + 1).join("\n"),
    startLine: firstLine + start,
    endLine: firstLine + end,
  };
}

function cutLine(line: string, queryTerms: ReadonlySet<string>, maxChars: number): string {
  const lower = line.toLowerCase();
  let at = -1;
  for (const term of queryTerms) {
    const i = lower.indexOf(term);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const begin = Math.max(
    0,
    Math.min(at < 0 ? 0 : at - Math.floor(maxChars / 4), line.length - maxChars),
  );
  const cut = line.slice(begin, begin + maxChars - 2);
  return `${begin > 0 ? "…" : ""}${cut}${begin + maxChars - 2 < line.length ? "…" : ""}`;
}
