import * as v from "valibot";
import { consolidationSchema, maintenanceSchema } from "../consolidation/config-schema.js";
import { parseFallback } from "../embedding/fallback.js";
import { lifecycleSchema } from "../lifecycle/config-schema.js";
import { privacySchema } from "../privacy/config-schema.js";
import { TIER_WEIGHT_PRESETS, type TierWeightPreset } from "../search/tier-weight.js";
import type { Tier } from "../tier.js";
import { LAYOUT_PRESET_NAMES } from "../workspace/presets.js";

const TIER_NAMES = ["short", "mid", "long", "archive"] as const satisfies readonly Tier[];
/** Unknown keys are errors, so a typo never silently falls back to a default. */
const unknownKey = () => "unknown key (check its spelling; every key is listed in the README)";
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const unit = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
const tier = v.picklist(TIER_NAMES);
const globs = v.array(v.pipe(v.string(), v.minLength(1)));
const options = v.optional(v.record(v.string(), v.unknown()), {});
/** Providers tried in order when the chosen one fails: one id or a list, `none` only last. */
const fallbackSchema = v.optional(
  v.pipe(
    v.union([v.pipe(v.string(), v.minLength(1)), v.array(v.pipe(v.string(), v.minLength(1)))]),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        return parseFallback(dataset.value);
      } catch (error) {
        addIssue({ message: (error as Error).message });
        return NEVER;
      }
    }),
  ),
  [],
);
/** How failed provider calls are retried (embeddings and language models). */
const retrySchema = v.optional(
  v.strictObject(
    {
      retries: v.optional(int(0, 20), 4),
      minDelayMs: v.optional(int(0), 500),
      maxDelayMs: v.optional(int(0), 30_000),
      maxRetryAfterMs: v.optional(int(0), 60_000),
    },
    unknownKey,
  ),
  {},
);
/** When a failing provider stops being called (embeddings and language models). */
const circuitSchema = v.optional(
  v.strictObject(
    {
      failureThreshold: v.optional(int(1), 3),
      cooldownMs: v.optional(int(0), 60_000),
      finalCooldownMs: v.optional(int(0), 600_000),
    },
    unknownKey,
  ),
  {},
);

/**
 * The `engram.config.json` schema (valibot: chosen over zod because it loads in ~25 ms instead of
 * ~120 ms, and every CLI call loads it). Every key is optional; defaults come from the seeds.
 */
export const configSchema = v.strictObject(
  {
    $schema: v.optional(v.string()),
    /** Globs (workspace-relative, POSIX) per tier; a tier given here replaces that tier's defaults. */
    tiers: v.optional(
      v.strictObject(
        {
          short: v.optional(globs),
          mid: v.optional(globs),
          long: v.optional(globs),
          archive: v.optional(globs),
        },
        unknownKey,
      ),
    ),
    /**
     * A built-in layout (`openclaw`, `three-tier`, `logs`): its tier map, daily-log folder and
     * long-term file. Tiers given in `tiers` replace the preset's globs for those tiers.
     */
    layout: v.optional(v.picklist(LAYOUT_PRESET_NAMES)),
    /** Tier for indexed files that no tier glob matches (e.g. `extraPaths`). */
    defaultTier: v.optional(tier, "long"),
    /** Further Markdown folders or files to index (absolute or workspace-relative). */
    extraPaths: v.optional(v.array(v.pipe(v.string(), v.minLength(1))), []),
    store: v.optional(
      v.strictObject(
        {
          /** Store driver: `sqlite` (default). */
          driver: v.optional(v.pipe(v.string(), v.minLength(1)), "sqlite"),
          /** Driver-specific options, passed through. */
          options,
        },
        unknownKey,
      ),
      {},
    ),
    embedding: v.optional(
      v.strictObject(
        {
          /**
           * `auto` (default): local (a model path is set and exists) → openai (a key is found) →
           * gemini (a key is found) → none. `none`: keyword search only. Or a provider id.
           */
          provider: v.optional(v.pipe(v.string(), v.minLength(1)), "auto"),
          /** Model of the chosen provider (shorthand for `providers.<id>.model`). */
          model: v.optional(v.pipe(v.string(), v.minLength(1))),
          /**
           * Providers tried in order when the chosen one fails (e.g. `["local"]`, or one id as a
           * string); `"none"`, last, means keyword search from there on.
           */
          fallback: fallbackSchema,
          /** Settings per provider id (`apiKey`, `baseUrl`, `modelPath`, …; see each driver's README). */
          providers: v.optional(v.record(v.string(), v.record(v.string(), v.unknown())), {}),
          /** Estimated tokens one sync may send; the rest is embedded by the next sync. */
          maxTokensPerSync: v.optional(int(1)),
          retry: retrySchema,
          circuit: circuitSchema,
        },
        unknownKey,
      ),
      {},
    ),
    /**
     * The language model engram may use to curate memory (consolidation). Off by default: a model
     * reads the user's memory only when they choose one.
     */
    llm: v.optional(
      v.strictObject(
        {
          /**
           * `none` (default): no model. `auto`: local (`providers.local.modelPath` exists) →
           * openai (a key is found) → gemini (a key is found) → none. Or a provider id.
           */
          provider: v.optional(v.pipe(v.string(), v.minLength(1)), "none"),
          /** Model of the chosen provider (shorthand for `providers.<id>.model`). */
          model: v.optional(v.pipe(v.string(), v.minLength(1))),
          /**
           * Models tried in order when the chosen one fails (one id or a list); `"none"`, last,
           * means no model from there on.
           */
          fallback: fallbackSchema,
          /** Settings per provider id (`apiKey`, `baseUrl`, `modelPath`, …; see each driver's README). */
          providers: v.optional(v.record(v.string(), v.record(v.string(), v.unknown())), {}),
          /** Tokens (input + output) one run (e.g. a consolidation pass) may spend; unset: no cap. */
          maxTokensPerRun: v.optional(int(1)),
          retry: retrySchema,
          circuit: circuitSchema,
        },
        unknownKey,
      ),
      {},
    ),
    analyzer: v.optional(
      v.strictObject(
        {
          /** How Chinese/Japanese text is split into terms: character unigrams+bigrams, or ICU words. */
          cjk: v.optional(v.picklist(["bigrams", "words"]), "bigrams"),
          /** English words: Porter2 stems (`memories` finds `memory`), or as written. */
          english: v.optional(v.picklist(["porter2", "none"]), "porter2"),
          /** Drop English stop words (`the`, `of`, …). */
          stopWords: v.optional(v.boolean(), true),
        },
        unknownKey,
      ),
      {},
    ),
    chunking: v.pipe(
      v.optional(
        v.strictObject(
          {
            tokens: v.optional(int(16, 8192), 400),
            overlap: v.optional(int(0), 80),
            /**
             * Log files: daily logs (`YYYY-MM-DD.md` in any folder, archived ones included) and
             * session transcripts. Their one-line entries are found better in smaller chunks.
             */
            logs: v.optional(
              v.strictObject(
                {
                  tokens: v.optional(int(16, 8192), 175),
                  overlap: v.optional(int(0), 35),
                },
                unknownKey,
              ),
              {},
            ),
          },
          unknownKey,
        ),
        {},
      ),
      v.check((c) => c.overlap < c.tokens, "overlap must be smaller than tokens"),
      v.check(
        (c) => c.logs.overlap < c.logs.tokens,
        "logs.overlap must be smaller than logs.tokens",
      ),
    ),
    search: v.pipe(
      v.optional(
        v.strictObject(
          {
            maxResults: v.optional(int(1, 100), 6),
            /**
             * Unset: 0.35, a threshold on similarity (vector mode; in hybrid mode the cosine of
             * chunks only the vectors found). Set: applied to the final score in every mode.
             */
            minScore: v.optional(unit),
            candidateMultiplier: v.optional(int(1, 50), 4),
            fusion: v.optional(v.picklist(["weighted", "rrf"]), "weighted"),
            vectorWeight: v.optional(v.pipe(v.number(), v.minValue(0)), 0.7),
            textWeight: v.optional(v.pipe(v.number(), v.minValue(0)), 0.3),
            /**
             * `agreement` (default): per query, the vector side gets `vectorWeight` × (the share of
             * the two lists' best chunks they have in common)², so a model that finds nothing the
             * keywords find cannot push keyword hits aside. `fixed`: the split as configured.
             */
            weighting: v.optional(v.picklist(["agreement", "fixed"]), "agreement"),
            rrfK: v.optional(int(1), 10),
            snippetChars: v.optional(int(80, 10_000), 700),
            /** Tiers searched when a query names none. */
            tiers: v.optional(v.pipe(v.array(tier), v.minLength(1)), ["short", "mid", "long"]),
            /**
             * Maximal marginal relevance re-ranking: results that repeat what a better one already
             * shows give way to ones that add something (similarity: Jaccard over analysed terms).
             */
            mmr: v.optional(
              v.strictObject(
                {
                  enabled: v.optional(v.boolean(), false),
                  /** 1: relevance only; lower: more diversity. */
                  lambda: v.optional(unit, 0.7),
                },
                unknownKey,
              ),
              {},
            ),
            /**
             * Daily logs (`YYYY-MM-DD.md`) count less as they age: score × 0.5^(age / halfLifeDays).
             * `MEMORY.md` and undated files never decay.
             */
            temporalDecay: v.optional(
              v.strictObject(
                {
                  enabled: v.optional(v.boolean(), false),
                  halfLifeDays: v.optional(v.pipe(v.number(), v.minValue(0.001)), 30),
                },
                unknownKey,
              ),
              {},
            ),
            /**
             * A reranker reorders the best fused candidates before MMR, fail-open: past
             * `timeoutMs`, or when it fails, the fused order stands and the response says so.
             * `provider`: `none` (default), `http` (the `/v1/rerank` shape of Cohere, Jina,
             * Voyage, vLLM, Infinity, TEI, llama.cpp's server; `@engram/rerank-http`), `local` (a
             * GGUF reranker through node-llama-cpp; `@engram/embed-local`), `llm` (the workspace's
             * language model, `llm.provider`, grades each candidate), or an integrator's id.
             */
            rerank: v.optional(
              v.strictObject(
                {
                  provider: v.optional(v.pipe(v.string(), v.minLength(1)), "none"),
                  /** With a provider set: rerank every search (false: only when asked, `--rerank`). */
                  enabled: v.optional(v.boolean(), true),
                  /** Fused candidates sent to the reranker (at least `maxResults` are). */
                  candidates: v.optional(int(1, 1000), 30),
                  /** The deadline after which search answers in the fused order. */
                  timeoutMs: v.optional(int(1), 5000),
                  /**
                   * Send private spans and sensitive files to the reranker as they are (opt-in).
                   * Default false: spans are shown as `[private]`, sensitive files withheld.
                   */
                  includePrivate: v.optional(v.boolean(), false),
                  /** Settings per reranker id (`http`: baseUrl, model, apiKey…; `local`: modelPath…). */
                  providers: v.optional(
                    v.record(v.string(), v.record(v.string(), v.unknown())),
                    {},
                  ),
                },
                unknownKey,
              ),
              {},
            ),
            /**
             * Blend the three-tier seed's relevance formula into the ranking: `(1 − weight) ·
             * score + weight · r/(1+r)`, r = recencyWeight·1/days + frequencyWeight·recalls +
             * importanceWeight·important (weights from `lifecycle.candidates`).
             */
            relevance: v.optional(
              v.strictObject(
                {
                  enabled: v.optional(v.boolean(), false),
                  weight: v.optional(unit, 0.2),
                },
                unknownKey,
              ),
              {},
            ),
            /**
             * Score multiplier per tier (0–1): when scores tie closely, curated long-term memory
             * ranks above project notes, project notes above daily logs, the archive last. Or a
             * preset's name: `"curated-first"` (the default) or `"three-tier"` (the seed's
             * retrieval priority, short > mid > long > archive).
             */
            tierWeights: v.optional(
              v.union([
                v.pipe(
                  v.picklist(Object.keys(TIER_WEIGHT_PRESETS) as TierWeightPreset[]),
                  v.transform((name) => ({ ...TIER_WEIGHT_PRESETS[name] })),
                ),
                v.strictObject(
                  {
                    long: v.optional(unit, 1),
                    mid: v.optional(unit, 0.97),
                    short: v.optional(unit, 0.94),
                    archive: v.optional(unit, 0.9),
                  },
                  unknownKey,
                ),
              ]),
              {},
            ),
          },
          unknownKey,
        ),
        {},
      ),
      v.check(
        (s) => s.vectorWeight + s.textWeight > 0,
        "vectorWeight + textWeight must be greater than 0",
      ),
    ),
    sync: v.optional(
      v.strictObject(
        {
          watchDebounceMs: v.optional(int(0), 1500),
          /** Files larger than this are skipped with a warning (never loaded). */
          maxFileBytes: v.optional(int(1), 10 * 1024 * 1024),
          /** Chunks per store transaction during a sync. */
          batchChunks: v.optional(int(1), 1000),
          /** While watching, a stat-only re-scan this often catches missed events (0: never). */
          rescanIntervalMs: v.optional(int(0), 5 * 60_000),
        },
        unknownKey,
      ),
      {},
    ),
    /** Agent session transcripts (`*.jsonl`, one message per line), indexed as source `sessions`. */
    sessions: v.optional(
      v.strictObject(
        {
          /** Opt-in: transcripts are indexed only when true. */
          enabled: v.optional(v.boolean(), false),
          /** Folder of transcripts (workspace-relative or absolute). */
          dir: v.optional(v.pipe(v.string(), v.minLength(1)), "sessions"),
          /** Re-index a transcript once it has grown by this many bytes since it was indexed… */
          deltaBytes: v.optional(int(1), 100_000),
          /** …or by this many lines (messages), whichever comes first. */
          deltaMessages: v.optional(int(1), 50),
          /** Index only `<dir>/<agent>/*.jsonl` (per-agent isolation); unset: `<dir>/*.jsonl`. */
          agent: v.optional(
            v.pipe(
              v.string(),
              v.regex(
                /^[\p{L}\p{N}_][\p{L}\p{N}_.-]*$/u,
                "agent must be one folder name (letters, digits, _ . -)",
              ),
            ),
          ),
        },
        unknownKey,
      ),
      {},
    ),
    cache: v.optional(
      v.strictObject(
        {
          enabled: v.optional(v.boolean(), true),
          maxEntries: v.optional(int(1), 50_000),
        },
        unknownKey,
      ),
      {},
    ),
    /** Tier lifecycle: retention, archive and promotion rules (see `lifecycle/` in the README). */
    lifecycle: v.optional(lifecycleSchema, {}),
    /** Consolidation: curating long-term memory from new notes (see `consolidation/` in the README). */
    consolidation: v.optional(consolidationSchema, {}),
    /** Lifecycle rules and consolidation on a schedule (`engram watch`, `engram mcp`). */
    maintenance: v.optional(maintenanceSchema, {}),
    /** Sealing, explicit unlock and the audit (see "Sensitive memory" in the README). */
    privacy: v.optional(privacySchema, {}),
    /**
     * Pre-compaction memory flush (`createFlushPolicy`): a silent turn asking the model to store
     * lasting notes once the session's tokens reach contextWindow − reserveTokensFloor −
     * softThresholdTokens, once per compaction cycle.
     */
    flush: v.optional(
      v.strictObject(
        {
          enabled: v.optional(v.boolean(), true),
          reserveTokensFloor: v.optional(int(0), 20_000),
          softThresholdTokens: v.optional(int(0), 4_000),
          /** Replaces the default system prompt of the flush turn. */
          systemPrompt: v.optional(v.pipe(v.string(), v.minLength(1))),
          /** Replaces the default user prompt; `YYYY-MM-DD` in it becomes today's date. */
          userPrompt: v.optional(v.pipe(v.string(), v.minLength(1))),
        },
        unknownKey,
      ),
      {},
    ),
  },
  unknownKey,
);

/** A config as written by a user (every key optional). */
export type EngramConfigInput = v.InferInput<typeof configSchema>;
/** A config with every default filled in. */
export type EngramConfig = v.InferOutput<typeof configSchema>;

/** The min score used where the config leaves it unset. */
export const DEFAULT_MIN_SCORE = 0.35;
