import type { Candidate } from "../../src/search/types.js";

/** A one-line short-term candidate for ranking tests; its id and hash are its path. */
export function candidate(path: string, score: number, text = "x"): Candidate {
  return {
    chunk: {
      id: path,
      path,
      source: "memory",
      tier: "short",
      startLine: 1,
      endLine: 1,
      headings: [],
      text,
      hash: path,
    },
    score,
    scores: { text: score },
  };
}
