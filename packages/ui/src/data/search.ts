import {
  EngramError,
  isTier,
  type Memory,
  type MemoryScope,
  type SearchOptions,
  type SearchResponse,
  type SearchResult,
  type Source,
  TIERS,
  type Tier,
} from "@engram/core";
import { decayFactor, queryTermsOf } from "@engram/core/internal";

/** The search form's fields, as strings from a URL. */
export interface SearchParams {
  q?: string | undefined;
  mode?: string | undefined;
  tier?: string | undefined;
  source?: string | undefined;
  k?: string | undefined;
  fusion?: string | undefined;
}

/** Why a result ranked where it did: its parts and the multipliers applied to them. */
export interface ScoreExplanation {
  /** Cosine similarity of the vector side, when it ran. */
  vector?: number;
  /** The keyword side's score (BM25, normalised as the fusion uses it). */
  text?: number;
  fusion: "weighted" | "rrf" | "keyword" | "vector";
  /**
   * The fusion's configured weights (normalised to sum 1). Under `agreement` weighting (the
   * default) the vector side's share of each query is at most this, scaled by how much the
   * vector and keyword lists agree; under `fixed` it is this.
   */
  weights: { vector: number; text: number; weighting: "agreement" | "fixed" };
  /** The reranker's own score, when the results are in its order. */
  rerank?: number;
  /** Multiplier of the result's tier (`search.tierWeights`). */
  tierWeight: number;
  /** Multiplier of its age when temporal decay is on (1 otherwise, and for undated files). */
  decay: number;
}

/** A result with its explanation and the query's terms marked in its snippet. */
export interface ExplainedResult extends SearchResult {
  why: ScoreExplanation;
  /** Stretches of the snippet that hold query terms, as [start, end) offsets into `snippet`. */
  marks: Array<[number, number]>;
}

/** A search as the page shows it. */
export interface ExplainedResponse extends Omit<SearchResponse, "results"> {
  results: ExplainedResult[];
  scope: MemoryScope;
}

/**
 * The CLI's search (`engram search`): pick up edits first unless another process is syncing,
 * then `Memory.search` with the form's mode, tiers, sources and scope. Each result is explained
 * from the config the search ran with, and its matching terms are located with the index's own
 * analyzer (so `memories` marks `memory`, and `用户偏好` marks the characters of its bigrams).
 */
export async function runSearch(
  memory: Memory,
  params: SearchParams,
  scope: MemoryScope,
): Promise<ExplainedResponse> {
  const query = (params.q ?? "").trim();
  if (!query) {
    throw new EngramError("INVALID_ARGUMENT", "the search query is empty", {
      hint: "type what to look for, e.g. q=deploy plan",
    });
  }
  const options = searchOptions(params);
  await memory.sync({ wait: false });
  const response = await memory.search(query, { ...options, scope });
  const cfg = memory.config.search;
  const now = new Date();
  const total = cfg.vectorWeight + cfg.textWeight;
  const terms = new Set(queryTermsOf(memory.analyzer, query));
  const results = response.results.map(
    (r): ExplainedResult => ({
      ...r,
      why: {
        ...(r.scores.vector !== undefined ? { vector: r.scores.vector } : {}),
        ...(r.scores.text !== undefined ? { text: r.scores.text } : {}),
        fusion: response.mode === "hybrid" ? (options.fusion ?? cfg.fusion) : response.mode,
        weights: {
          vector: cfg.vectorWeight / total,
          text: cfg.textWeight / total,
          weighting: cfg.weighting,
        },
        ...(r.scores.rerank !== undefined ? { rerank: r.scores.rerank } : {}),
        tierWeight: cfg.tierWeights[r.tier] ?? 1,
        decay: cfg.temporalDecay.enabled
          ? decayFactor(r.path, now, cfg.temporalDecay.halfLifeDays)
          : 1,
      },
      marks: markTerms(r.snippet, terms, (t) => memory.analyzer.terms(t)),
    }),
  );
  return { ...response, results, scope };
}

/** The search options a form asks for, or an `INVALID_ARGUMENT` naming the bad field. */
export function searchOptions(params: SearchParams): SearchOptions {
  const options: SearchOptions = {};
  const mode = oneOf("mode", params.mode, ["hybrid", "keyword", "vector"] as const);
  if (mode) options.mode = mode;
  const fusion = oneOf("fusion", params.fusion, ["weighted", "rrf"] as const);
  if (fusion) options.fusion = fusion;
  if (params.k) {
    const k = Number(params.k);
    if (!Number.isInteger(k) || k < 1 || k > 100) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `k must be a whole number from 1 to 100, got "${params.k}"`,
        {
          hint: "for example k=6",
        },
      );
    }
    options.maxResults = k;
  }
  if (params.tier) {
    const tiers =
      params.tier === "all"
        ? [...TIERS]
        : params.tier
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean);
    const bad = tiers.find((t) => !isTier(t));
    if (bad !== undefined || !tiers.length) {
      throw new EngramError("INVALID_ARGUMENT", `unknown tier "${bad ?? params.tier}"`, {
        hint: `use ${TIERS.join(", ")} or all, comma-separated`,
      });
    }
    options.tiers = tiers as Tier[];
  }
  if (params.source) {
    options.sources = params.source
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => oneOf("source", s, ["memory", "sessions"] as const) as Source);
  }
  return options;
}

/**
 * Where the query's terms occur in `text`: each run of letters or digits whose analysed terms
 * meet the query's (a whole word), and in CJK text each character inside a query bigram that
 * occurs there (or a single character the query searched for alone).
 */
export function markTerms(
  text: string,
  queryTerms: ReadonlySet<string>,
  termsOf: (text: string) => string[],
): Array<[number, number]> {
  const marks: Array<[number, number]> = [];
  const cjkTerms = [...queryTerms].filter((t) => CJK_CHAR.test(t));
  // Characters the query searched for alone (a one-character query such as 猫).
  const lone = new Set(
    cjkTerms.some((t) => [...t].length > 1) ? [] : cjkTerms.filter((t) => [...t].length === 1),
  );
  for (const m of text.matchAll(RUN_RE)) {
    const run = m[0];
    const start = m.index;
    if (!CJK_CHAR.test(run)) {
      if (termsOf(run).some((t) => queryTerms.has(t))) marks.push([start, start + run.length]);
      continue;
    }
    const chars = [...run];
    const offsets = [start];
    for (const ch of chars) offsets.push((offsets.at(-1) as number) + ch.length);
    const hit = chars.map((ch) => lone.has(ch.toLowerCase()));
    for (let i = 0; i + 1 < chars.length; i++) {
      if (queryTerms.has(`${chars[i]}${chars[i + 1]}`.toLowerCase())) {
        hit[i] = true;
        hit[i + 1] = true;
      }
    }
    for (let i = 0; i < chars.length; ) {
      if (!hit[i]) {
        i++;
        continue;
      }
      let j = i;
      while (j < chars.length && hit[j]) j++;
      marks.push([offsets[i] as number, offsets[j] as number]);
      i = j;
    }
  }
  return marks;
}

const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}`;
const CJK_CHAR = new RegExp(`[${CJK}]`, "u");
/** A run of CJK characters, or a run of other letters, marks and digits. */
const RUN_RE = new RegExp(`[${CJK}]+|(?:(?![${CJK}])[\\p{L}\\p{M}\\p{N}])+`, "gu");

function oneOf<T extends string>(
  field: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined || value === "") return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new EngramError(
    "INVALID_ARGUMENT",
    `${field} must be one of ${allowed.join(", ")}, got "${value}"`,
    {
      hint: `for example ${field}=${allowed[0]}`,
    },
  );
}
