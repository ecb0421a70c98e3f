import type { EngramConfig } from "../config/schema.js";
import type { CircuitState } from "../embedding/circuit-breaker.js";
import type { MemoryStore } from "../store/store.js";
import { LanguageModelChain } from "./chain.js";
import type { LanguageModel, TokenUsage } from "./language-model.js";
import { type LanguageModelRegistry, selectLanguageModels } from "./provider.js";
import type { LanguageModelStats, ResilientLanguageModel } from "./resilient.js";

/** Meta key where language-model health and tokens spent are kept between processes. */
export const LLM_STATE_META_KEY = "engram.llmState";

/** What is kept per model (by `provider/model[@endpoint]`) between processes. */
interface ModelRecord
  extends Pick<CircuitState, "failures" | "openUntil" | "lastError" | "lastErrorCode"> {
  /** Tokens and requests by every process since the index was created. */
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

/** Tokens spent, as status reports them. */
export interface TokensSpent {
  inputTokens: number;
  outputTokens: number;
  /** Calls the provider answered. */
  requests: number;
}

/** One configured language model, as `engram status` shows it. */
export interface LanguageModelMemberStatus {
  id: string;
  model: string;
  endpoint: string | null;
  /** True for the primary; false for fallbacks. */
  primary: boolean;
  /** Its circuit (shared between processes: a model another process saw fail stays paused). */
  circuit: CircuitState;
  /** Calls, retries, failures and tokens in this process. */
  stats: LanguageModelStats;
  /** Tokens spent with it by every process since the index was created. */
  spent: TokensSpent;
}

/** The `llm` section of `engram status`. */
export interface LanguageModelStatus {
  /** The configured models, primary first; empty when none is configured (`llm.provider: none`). */
  models: LanguageModelMemberStatus[];
  /** Why providers were passed over (`llm.provider is none`, no API key, …). */
  notes: string[];
  /** Tokens spent with any model by every process since the index was created. */
  spent: TokensSpent;
  /** The default token cap of one run (`llm.maxTokensPerRun`), or null for none. */
  maxTokensPerRun: number | null;
}

/**
 * A workspace's language models: chosen from the config (or given), wrapped in the chain, their
 * health restored from and saved to the store's meta (`engram.llmState`) so a model that failed
 * in one process stays paused in the next, and the tokens every process spent added up there.
 * `createMemory` opens one; `memory.languageModel` is its chain.
 */
export class WorkspaceModels {
  /** The chain, or null when no model is configured. */
  readonly chain: LanguageModelChain | null;
  readonly notes: readonly string[];
  readonly #store: MemoryStore;
  readonly #config: EngramConfig;
  /** Usage not yet saved, by model key. */
  readonly #unsaved = new Map<string, TokensSpent>();
  #saving: Promise<void> = Promise.resolve();

  private constructor(
    models: readonly LanguageModel[],
    notes: readonly string[],
    store: MemoryStore,
    config: EngramConfig,
  ) {
    this.notes = notes;
    this.#store = store;
    this.#config = config;
    this.chain = models.length
      ? new LanguageModelChain(models, {
          retry: config.llm.retry,
          circuit: config.llm.circuit,
          maxTokensPerRun: config.llm.maxTokensPerRun,
          onUsage: (usage, model) => this.#count(model, usage),
          onSettled: () => this.save(),
        })
      : null;
  }

  /**
   * Open the models `given` (a model or several: the primary first), else those `config.llm`
   * names, chosen from `registry` (see `selectLanguageModels`); none without either.
   */
  static async open(parts: {
    config: EngramConfig;
    store: MemoryStore;
    given?: LanguageModel | readonly LanguageModel[] | null | undefined;
    registry?: LanguageModelRegistry | undefined;
    env?: Readonly<Record<string, string | undefined>> | undefined;
  }): Promise<WorkspaceModels> {
    const { config, store, given, registry } = parts;
    const selection =
      given === undefined && registry
        ? await selectLanguageModels(config.llm, registry, parts.env)
        : {
            warnings: [],
            models: given ? (Array.isArray(given) ? [...given] : [given as LanguageModel]) : [],
            notes: given
              ? []
              : [
                  config.llm.provider === "none"
                    ? "no language model configured (llm.provider is none)"
                    : `llm.provider is ${config.llm.provider}, but createMemory was given no language-model drivers (languageModels)`,
                ],
          };
    const models = new WorkspaceModels(
      selection.models,
      [...selection.warnings, ...selection.notes],
      store,
      config,
    );
    const saved = await models.#read();
    for (const member of models.chain?.members ?? []) {
      const record = saved[member.describe()];
      if (record) member.breaker.restore(record);
    }
    return models;
  }

  /** Health and tokens for `engram status`. */
  async status(): Promise<LanguageModelStatus> {
    await this.#saving;
    const saved = await this.#read();
    const spentOf = (key: string): TokensSpent => {
      const r = saved[key];
      const u = this.#unsaved.get(key);
      return {
        inputTokens: (r?.inputTokens ?? 0) + (u?.inputTokens ?? 0),
        outputTokens: (r?.outputTokens ?? 0) + (u?.outputTokens ?? 0),
        requests: (r?.requests ?? 0) + (u?.requests ?? 0),
      };
    };
    const keys = new Set([...Object.keys(saved), ...this.#unsaved.keys()]);
    const spent: TokensSpent = { inputTokens: 0, outputTokens: 0, requests: 0 };
    for (const key of keys) {
      const s = spentOf(key);
      spent.inputTokens += s.inputTokens;
      spent.outputTokens += s.outputTokens;
      spent.requests += s.requests;
    }
    const chain = this.chain;
    return {
      models: (chain?.members ?? []).map((m) => ({
        id: m.id,
        model: m.model,
        endpoint: m.endpoint ?? null,
        primary: m === chain?.primary,
        circuit: m.circuit(),
        stats: { ...m.stats },
        spent: spentOf(m.describe()),
      })),
      notes: [...this.notes],
      spent,
      maxTokensPerRun: this.#config.llm.maxTokensPerRun ?? null,
    };
  }

  /**
   * Save every model's health and the tokens spent since the last save (added to what other
   * processes saved). Saves run one at a time; a failed save is retried by the next.
   */
  save(): Promise<void> {
    const run = this.#saving.then(() => this.#write());
    this.#saving = run.catch(() => {});
    return run;
  }

  /** Save, then close the models. */
  async close(): Promise<void> {
    await this.save().catch(() => {});
    await this.chain?.close();
  }

  #count(model: ResilientLanguageModel, usage: TokenUsage): void {
    const key = model.describe();
    const entry = this.#unsaved.get(key) ?? { inputTokens: 0, outputTokens: 0, requests: 0 };
    entry.inputTokens += usage.inputTokens;
    entry.outputTokens += usage.outputTokens;
    entry.requests++;
    this.#unsaved.set(key, entry);
  }

  async #write(): Promise<void> {
    if (!this.chain && !this.#unsaved.size) return;
    const saved = await this.#read();
    const unsaved = new Map(this.#unsaved);
    for (const [key, used] of unsaved) {
      const record = saved[key] ?? emptyRecord();
      record.inputTokens += used.inputTokens;
      record.outputTokens += used.outputTokens;
      record.requests += used.requests;
      saved[key] = record;
    }
    for (const member of this.chain?.members ?? []) {
      const { failures, openUntil, lastError, lastErrorCode } = member.circuit();
      saved[member.describe()] = {
        ...(saved[member.describe()] ?? emptyRecord()),
        failures,
        openUntil,
        lastError,
        lastErrorCode,
      };
    }
    await this.#store.setMeta(LLM_STATE_META_KEY, JSON.stringify(saved));
    for (const [key, used] of unsaved) {
      const now = this.#unsaved.get(key);
      if (!now) continue;
      now.inputTokens -= used.inputTokens;
      now.outputTokens -= used.outputTokens;
      now.requests -= used.requests;
      if (!now.inputTokens && !now.outputTokens && !now.requests) this.#unsaved.delete(key);
    }
  }

  async #read(): Promise<Record<string, ModelRecord>> {
    const json = await this.#store.getMeta(LLM_STATE_META_KEY);
    if (!json) return {};
    try {
      const parsed = JSON.parse(json) as unknown;
      return parsed && typeof parsed === "object" && !Array.isArray(parsed)
        ? (parsed as Record<string, ModelRecord>)
        : {};
    } catch {
      return {};
    }
  }
}

function emptyRecord(): ModelRecord {
  return {
    failures: 0,
    openUntil: null,
    lastError: null,
    lastErrorCode: null,
    inputTokens: 0,
    outputTokens: 0,
    requests: 0,
  };
}
