import { estimateTokens } from "@engram/core/driver";

/** A run of consecutive texts sent as one embeddings request: `texts.slice(start, end)`. */
export interface RequestRange {
  start: number;
  end: number;
}

/**
 * Split `texts` into consecutive requests of at most `maxInputs` texts and `maxTokens` estimated
 * tokens (core's estimate). A single text over `maxTokens` still gets a request of its own, so the
 * API, not engram, says whether it is too long.
 */
export function planRequests(
  texts: readonly string[],
  maxInputs: number,
  maxTokens: number,
): RequestRange[] {
  const ranges: RequestRange[] = [];
  let start = 0;
  let tokens = 0;
  for (let i = 0; i < texts.length; i++) {
    const cost = estimateTokens(texts[i] ?? "");
    if (i > start && (i - start >= maxInputs || tokens + cost > maxTokens)) {
      ranges.push({ start, end: i });
      start = i;
      tokens = 0;
    }
    tokens += cost;
  }
  if (texts.length > start) ranges.push({ start, end: texts.length });
  return ranges;
}
