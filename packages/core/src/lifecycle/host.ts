import type { EngramConfig } from "../config/schema.js";
import type { Embedder } from "../embedding/embedder.js";
import type { SearchOptions, SearchResponse } from "../search/types.js";
import { type Analyzer, createAnalyzer } from "../text/analyzer.js";
import type { Tier } from "../tier.js";
import type { Clock } from "../workspace/clock.js";
import { isMarkdownName } from "../workspace/paths.js";
import { resolveLayout } from "../workspace/presets.js";
import { createTierResolver } from "../workspace/tiers.js";

/**
 * What the lifecycle needs from a workspace's memory. A {@link Memory} is one; so is a plain
 * `{ workspace, config }` (files only: the index is then left to the next `sync`).
 */
export interface LifecycleHost {
  /** The workspace's real path. */
  readonly workspace: string;
  readonly config: EngramConfig;
  /** Source of "now" when an operation is not given one. */
  readonly clock?: Clock;
  /** The analyzer of the index (default: one built from the config). */
  readonly analyzer?: Analyzer;
  /** The provider the index is embedded with (vector dedupe when present). */
  readonly embedder?: Embedder | null;
  /** A targeted sync of moved paths, so the index follows without a rebuild. */
  sync?(options: { paths: string[] }): Promise<unknown>;
  /** Recall counts not yet written (a Memory's); flushed before candidates are scored. */
  readonly recall?: { flush(): Promise<void> };
  /** Hybrid search (vector dedupe). */
  search?(query: string, options?: SearchOptions): Promise<SearchResponse>;
}

/** Options every lifecycle operation takes. */
export interface LifecycleTimeOptions {
  /** "Now" for ages and timestamps (default: the host's clock, else the system clock). */
  now?: Date;
}

/**
 * Condenses text on its way to the archive or to long-term memory (e.g. a call to the
 * integrator's LLM). Without one, text moves verbatim. An archived file keeps its full text below
 * the summary; a promotion writes the summary instead of the text.
 */
export type Summariser = (input: {
  kind: "promote" | "archive";
  path: string;
  text: string;
}) => Promise<string>;

/** Options of planning: when and how. */
export interface LifecyclePlanOptions extends LifecycleTimeOptions {
  /** Put a summary on top of every archived file (its full text stays below). */
  summarise?: Summariser;
  /**
   * Plan only the moves this returns true for (a person approved them one by one); the others
   * are left out as if rejected. A path a rejected move would have taken stays claimed by its
   * rule, so no later rule picks it up instead. Default: every move.
   */
  select?: (move: { rule: string; from: string }) => boolean;
}

/** The instant an operation runs at. */
export function hostNow(host: LifecycleHost, options: LifecycleTimeOptions = {}): Date {
  return options.now ?? host.clock?.now() ?? new Date();
}

/**
 * Re-index exactly `paths` (the Markdown ones) after a move. Returns a warning instead of throwing:
 * the files are already right, and the next sync reconciles the index anyway.
 */
export async function syncIndex(
  host: LifecycleHost,
  paths: readonly string[],
): Promise<string | undefined> {
  const md = paths.filter((p) => isMarkdownName(p));
  if (!host.sync || md.length === 0) return undefined;
  try {
    await host.sync({ paths: md });
    return undefined;
  } catch (error) {
    return `the index did not follow the move (${(error as Error).message}); run \`engram sync\``;
  }
}

/** The tier of a workspace path under the host's layout and tier map. */
export function hostTierOf(host: LifecycleHost): (path: string) => Tier {
  return createTierResolver(resolveLayout(host.config).tiers, host.config.defaultTier);
}

/** The host's analyzer, or one built from its config. */
export function hostAnalyzer(host: LifecycleHost): Analyzer {
  return host.analyzer ?? createAnalyzer(host.config.analyzer);
}
