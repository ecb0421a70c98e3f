import type { EngramConfig } from "../config/schema.js";
import { EngramError } from "../errors.js";
import type { LanguageModel } from "../model/language-model.js";
import { languageModelReranker } from "../model/language-model-reranker.js";
import type { Reranker } from "../model/reranker.js";
import { type RerankerRegistry, selectReranker } from "../model/reranker-provider.js";
import type { MemoryStore } from "../store/store.js";
import type { RerankOutcome } from "./rerank.js";
import {
  countRerank,
  RERANK_STATS_META_KEY,
  type RerankStats,
  rerankStatsOf,
} from "./rerank-stats.js";

/** The rerank stage as `engram status` shows it. */
export interface RerankStatus {
  /** `search.rerank.provider` (or `ENGRAM_RERANK_PROVIDER`). */
  provider: string;
  /** Whether every search reranks (false: only searches that ask, `--rerank`). */
  enabled: boolean;
  candidates: number;
  timeoutMs: number;
  /** The reranker's model and endpoint, once a search created it in this process. */
  model?: string;
  endpoint?: string;
  /** Calls, documents, latency and skips, over every process of this index. */
  stats: RerankStats;
}

/**
 * A memory's reranker: the one given, or the one `search.rerank` names, created on the first
 * search that reranks (so a misconfigured reranker fails that search, not every command); the
 * outcome of each call counted in the index's meta; closed with the memory when it made it.
 */
export class RerankSlot {
  readonly #config: EngramConfig["search"]["rerank"];
  readonly #registry: RerankerRegistry;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #given: Reranker | null | undefined;
  readonly #languageModel: () => LanguageModel | null;
  #created: Promise<Reranker | null> | undefined;

  constructor(options: {
    config: EngramConfig["search"]["rerank"];
    registry?: RerankerRegistry | undefined;
    env?: Readonly<Record<string, string | undefined>> | undefined;
    given?: Reranker | null | undefined;
    /** The workspace's language model, for `provider: "llm"`. */
    languageModel?: (() => LanguageModel | null) | undefined;
  }) {
    this.#languageModel = options.languageModel ?? (() => null);
    this.#config = options.config;
    this.#registry = options.registry ?? {};
    this.#env = options.env ?? process.env;
    this.#given = options.given;
  }

  /** The provider id in force (`none` when there is no reranker). */
  get provider(): string {
    if (this.#given !== undefined) return this.#given?.id ?? "none";
    return this.#env.ENGRAM_RERANK_PROVIDER?.trim() || this.#config.provider;
  }

  /** The reranker, created on first use; null when none is configured. */
  get(): Promise<Reranker | null> {
    if (this.#given !== undefined) return Promise.resolve(this.#given);
    if (this.provider === "none") return Promise.resolve(null);
    if (this.provider === "llm") {
      const model = this.#languageModel();
      if (!model) {
        return Promise.reject(
          new EngramError(
            "CONFIG_INVALID",
            'search.rerank.provider is "llm" but no language model is configured',
            {
              hint: 'set llm.provider (see the README\'s "Language model" section), or another reranker',
            },
          ),
        );
      }
      this.#created ??= Promise.resolve(languageModelReranker(model));
      return this.#created;
    }
    this.#created ??= selectReranker(this.#config, this.#registry, this.#env);
    // A failed creation is forgotten: the next search tries again (after the user fixed it).
    this.#created.catch(() => {
      this.#created = undefined;
    });
    return this.#created;
  }

  /** Count one search's rerank outcome in the index's meta (shared by every process). */
  async note(store: MemoryStore, outcome: RerankOutcome, now: Date): Promise<void> {
    const stored = await store.getMeta(RERANK_STATS_META_KEY);
    await store.setMeta(RERANK_STATS_META_KEY, countRerank(stored, outcome, now));
  }

  async status(store: MemoryStore): Promise<RerankStatus | null> {
    if (this.provider === "none") return null;
    const made = this.#given ?? (await this.#created?.catch(() => null));
    return {
      provider: this.provider,
      enabled: this.#config.enabled,
      candidates: this.#config.candidates,
      timeoutMs: this.#config.timeoutMs,
      ...(made ? { model: made.model } : {}),
      ...(made?.endpoint ? { endpoint: made.endpoint } : {}),
      stats: rerankStatsOf(await store.getMeta(RERANK_STATS_META_KEY)),
    };
  }

  /** Close the reranker this slot created (a given one belongs to its caller). */
  async close(): Promise<void> {
    const made = await this.#created?.catch(() => null);
    await made?.close?.();
  }
}
