import { z } from "zod";
import type { Tier } from "../tier.js";

const tier = z.enum(["short", "mid", "long", "archive"] satisfies [Tier, ...Tier[]]);
const globs = z.array(z.string().min(1));
const positiveInt = z.number().int().positive();

/**
 * The `engram.config.json` schema. Every key is optional; defaults come from the seeds.
 * Unknown keys are errors, so a typo never silently falls back to a default.
 */
export const configSchema = z
  .object({
    $schema: z.string().optional(),
    /** Globs (workspace-relative, POSIX) per tier; a tier given here replaces that tier's defaults. */
    tiers: z
      .strictObject({
        short: globs.optional(),
        mid: globs.optional(),
        long: globs.optional(),
        archive: globs.optional(),
      })
      .optional(),
    /** Tier for indexed files that no tier glob matches (e.g. `extraPaths`). */
    defaultTier: tier.default("long"),
    /** Further Markdown folders or files to index (absolute or workspace-relative). */
    extraPaths: z.array(z.string().min(1)).default([]),
    store: z
      .strictObject({
        /** Store driver: `sqlite` (default). */
        driver: z.string().min(1).default("sqlite"),
        /** Driver-specific options, passed through. */
        options: z.record(z.string(), z.unknown()).default({}),
      })
      .prefault({}),
    embedding: z
      .strictObject({
        /** `auto` picks a configured provider if one is available; `none` means keyword search only. */
        provider: z.string().min(1).default("auto"),
        model: z.string().min(1).optional(),
        options: z.record(z.string(), z.unknown()).default({}),
      })
      .prefault({}),
    analyzer: z
      .strictObject({
        /** How Chinese/Japanese text is split into terms: character unigrams+bigrams, or ICU words. */
        cjk: z.enum(["bigrams", "words"]).default("bigrams"),
      })
      .prefault({}),
    chunking: z
      .strictObject({
        tokens: z.number().int().min(16).max(8192).default(400),
        overlap: z.number().int().min(0).default(80),
      })
      .prefault({})
      .refine((c) => c.overlap < c.tokens, {
        message: "chunking.overlap must be smaller than chunking.tokens",
      }),
    search: z
      .strictObject({
        maxResults: positiveInt.max(100).default(6),
        /** Unset: 0.35, applied where scores are similarity-based (weighted hybrid, vector). Set: applied in every mode. */
        minScore: z.number().min(0).max(1).optional(),
        candidateMultiplier: positiveInt.max(50).default(4),
        fusion: z.enum(["weighted", "rrf"]).default("weighted"),
        vectorWeight: z.number().min(0).default(0.7),
        textWeight: z.number().min(0).default(0.3),
        rrfK: positiveInt.default(60),
        snippetChars: z.number().int().min(80).max(10_000).default(700),
        /** Tiers searched when a query names none. */
        tiers: z.array(tier).min(1).default(["short", "mid", "long"]),
      })
      .prefault({})
      .refine((s) => s.vectorWeight + s.textWeight > 0, {
        message: "search.vectorWeight + search.textWeight must be greater than 0",
      }),
    sync: z
      .strictObject({
        watchDebounceMs: z.number().int().min(0).default(1500),
        /** Files larger than this are skipped with a warning (never loaded). */
        maxFileBytes: positiveInt.default(10 * 1024 * 1024),
        /** Chunks per store transaction during a sync. */
        batchChunks: positiveInt.default(1000),
      })
      .prefault({}),
    cache: z
      .strictObject({
        enabled: z.boolean().default(true),
        maxEntries: positiveInt.default(50_000),
      })
      .prefault({}),
  })
  .strict();

/** A config as written by a user (every key optional). */
export type EngramConfigInput = z.input<typeof configSchema>;
/** A config with every default filled in. */
export type EngramConfig = z.output<typeof configSchema>;

/** The min score used where the config leaves it unset. */
export const DEFAULT_MIN_SCORE = 0.35;
