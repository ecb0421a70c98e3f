import * as v from "valibot";
import type { Tier } from "../tier.js";

const TIER_NAMES = ["short", "mid", "long", "archive"] as const satisfies readonly Tier[];
/** Unknown keys are errors, so a typo never silently falls back to a default. */
const unknownKey = () => "unknown key (check its spelling; every key is listed in the README)";
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const unit = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
const tier = v.picklist(TIER_NAMES);
const globs = v.array(v.pipe(v.string(), v.minLength(1)));
const options = v.optional(v.record(v.string(), v.unknown()), {});

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
          /** Providers tried in order when the chosen one fails (e.g. `["local"]`). */
          fallback: v.optional(v.array(v.pipe(v.string(), v.minLength(1))), []),
          /** Settings per provider id (`apiKey`, `baseUrl`, `modelPath`, …; see each driver's README). */
          providers: v.optional(v.record(v.string(), v.record(v.string(), v.unknown())), {}),
          /** Estimated tokens one sync may send; the rest is embedded by the next sync. */
          maxTokensPerSync: v.optional(int(1)),
          retry: v.optional(
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
          ),
          circuit: v.optional(
            v.strictObject(
              {
                failureThreshold: v.optional(int(1), 3),
                cooldownMs: v.optional(int(0), 60_000),
                finalCooldownMs: v.optional(int(0), 600_000),
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
          },
          unknownKey,
        ),
        {},
      ),
      v.check((c) => c.overlap < c.tokens, "overlap must be smaller than tokens"),
    ),
    search: v.pipe(
      v.optional(
        v.strictObject(
          {
            maxResults: v.optional(int(1, 100), 6),
            /** Unset: 0.35, applied where scores are similarity-based (weighted hybrid, vector). Set: applied in every mode. */
            minScore: v.optional(unit),
            candidateMultiplier: v.optional(int(1, 50), 4),
            fusion: v.optional(v.picklist(["weighted", "rrf"]), "weighted"),
            vectorWeight: v.optional(v.pipe(v.number(), v.minValue(0)), 0.7),
            textWeight: v.optional(v.pipe(v.number(), v.minValue(0)), 0.3),
            rrfK: v.optional(int(1), 60),
            snippetChars: v.optional(int(80, 10_000), 700),
            /** Tiers searched when a query names none. */
            tiers: v.optional(v.pipe(v.array(tier), v.minLength(1)), ["short", "mid", "long"]),
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
  },
  unknownKey,
);

/** A config as written by a user (every key optional). */
export type EngramConfigInput = v.InferInput<typeof configSchema>;
/** A config with every default filled in. */
export type EngramConfig = v.InferOutput<typeof configSchema>;

/** The min score used where the config leaves it unset. */
export const DEFAULT_MIN_SCORE = 0.35;
