import * as v from "valibot";
import type { SearchMode } from "../search/types.js";
import { TIERS, type Tier } from "../tier.js";
import { unlockArg, withheldField } from "./tool-privacy.js";
import { expects, nonEmptyText, wholeNumber } from "./tool-schema.js";
import { defineMemoryTool } from "./tool-spec.js";

/** One `memory_search` hit: a snippet with the exact lines it shows. */
export interface SearchToolHit {
  path: string;
  startLine: number;
  endLine: number;
  snippet: string;
  score: number;
  tier: Tier;
  source: string;
  /** Embedding provider and model that answered the vector side, when it ran. */
  provider?: string;
  model?: string;
  /** True when a fallback provider answered instead of the configured primary. */
  fallback: boolean;
  /** True when keyword search answered alone. */
  degraded: boolean;
  /** What was held back from this hit (sensitive long-term memory of a locked session). */
  withheld?: string;
}

/** The result of `memory_search`. */
export interface SearchToolResult {
  query: string;
  mode: SearchMode;
  degraded: boolean;
  degradedReason?: string;
  results: SearchToolHit[];
}

const args = v.strictObject({
  query: v.pipe(
    nonEmptyText(),
    v.description("What to look for, in any language (e.g. 'deploy rollback plan', '部署计划')."),
    v.examples(["deploy plan"]),
    expects("non-empty text"),
  ),
  maxResults: v.optional(
    v.pipe(
      wholeNumber(1, 100),
      v.description("Most results to return (default 6)."),
      v.examples([6]),
      expects("a whole number from 1 to 100"),
    ),
  ),
  minScore: v.optional(
    v.pipe(
      v.number(),
      v.minValue(0),
      v.maxValue(1),
      v.description("Drop results scoring below this (0 to 1; default from the config)."),
      v.examples([0.35]),
      expects("a number from 0 to 1"),
    ),
  ),
  tiers: v.optional(
    v.pipe(
      v.array(v.picklist(TIERS)),
      v.description("Memory tiers to search (default short, mid, long; archive only on request)."),
      v.examples([["long", "mid"]]),
      expects(`a list of tiers (${TIERS.join(", ")})`),
    ),
  ),
  sources: v.optional(
    v.pipe(
      v.array(nonEmptyText()),
      v.description("Sources to search, e.g. ['memory'] or ['sessions'] (default all)."),
      v.examples([["memory"]]),
      expects("a list of source names"),
    ),
  ),
  unlock: unlockArg,
});

const hit = v.object({
  path: v.pipe(v.string(), v.description("Workspace-relative path of the file.")),
  startLine: v.pipe(wholeNumber(1), v.description("First line the snippet shows (1-based).")),
  endLine: v.pipe(wholeNumber(1), v.description("Last line the snippet shows (inclusive).")),
  snippet: v.string(),
  score: v.pipe(v.number(), v.description("Fused score from 0 to 1, higher is better.")),
  tier: v.picklist(TIERS),
  source: v.string(),
  provider: v.optional(v.string()),
  model: v.optional(v.string()),
  fallback: v.boolean(),
  degraded: v.boolean(),
  withheld: withheldField,
});

const result = v.object({
  query: v.string(),
  mode: v.picklist(["hybrid", "keyword", "vector"] as const satisfies readonly SearchMode[]),
  degraded: v.pipe(v.boolean(), v.description("True when keyword search answered alone.")),
  degradedReason: v.optional(v.string()),
  results: v.array(hit),
});

/** `memory_search`: hybrid search over the workspace's memory. */
export const memorySearchTool = defineMemoryTool({
  name: "memory_search",
  title: "Search memory",
  description:
    "Search the agent's Markdown memory (MEMORY.md and memory/**/*.md) with hybrid keyword + " +
    "semantic search. Returns snippets (at most ~700 characters) with the file path, 1-based line " +
    "range and score, plus the embedding provider/model and whether the search degraded to " +
    "keywords only. Use memory_get with a result's path and lines to read more.",
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  args,
  result: result satisfies v.GenericSchema<unknown, SearchToolResult>,
  run: async (memory, { query, unlock: _unlock, ...options }): Promise<SearchToolResult> => {
    const response = await memory.search(query, options);
    return {
      query: response.query,
      mode: response.mode,
      degraded: response.degraded,
      ...(response.degradedReason ? { degradedReason: response.degradedReason } : {}),
      results: response.results.map((r) => ({
        path: r.path,
        startLine: r.startLine,
        endLine: r.endLine,
        snippet: r.snippet,
        score: r.score,
        tier: r.tier,
        source: r.source,
        ...(r.provider ? { provider: r.provider } : {}),
        ...(r.model ? { model: r.model } : {}),
        fallback: r.fallback === true,
        degraded: r.degraded,
        ...("withheld" in r && typeof r.withheld === "string" ? { withheld: r.withheld } : {}),
      })),
    };
  },
});
