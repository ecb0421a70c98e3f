import {
  type EngramConfig,
  EngramError,
  type LanguageModelRegistry,
  type ProviderRegistry,
  type RerankerRegistry,
  type StoreFactory,
} from "@engram/core";

/**
 * The store drivers the CLI knows, imported lazily so a user only loads the one they use. This is
 * the one place that knows every driver.
 */
const STORES: Record<string, (options: Record<string, unknown>) => Promise<StoreFactory>> = {
  // Every store.options key goes to the driver, which refuses the ones it does not know.
  sqlite: async (options) => {
    const { sqliteStore } = await import("@engram/store-sqlite");
    return sqliteStore(options);
  },
  // Each CLI call is a new process, so the in-memory store keeps a snapshot in .engram/.
  memory: async (options) => {
    const loaded = await optional(import("@engram/store-memory"));
    if (!loaded) {
      throw new EngramError("CONFIG_INVALID", "the memory store is not installed", {
        hint: "npm install @engram/store-memory next to @engram/cli",
      });
    }
    return loaded.inMemoryStore({ snapshotPath: ".engram/memory-snapshot.jsonl", ...options });
  },
  lancedb: async (options) => {
    const loaded = await optional(import("@engram/store-lancedb"));
    if (!loaded) {
      throw new EngramError("CONFIG_INVALID", "the lancedb store is not installed", {
        hint: "npm install @engram/store-lancedb next to @engram/cli",
      });
    }
    return loaded.lancedbStore(options);
  },
  // url, apiKey and collection from store.options; QDRANT_URL / QDRANT_API_KEY fill the gaps.
  qdrant: async (options) => {
    const loaded = await optional(import("@engram/store-qdrant"));
    if (!loaded) {
      throw new EngramError("CONFIG_INVALID", "the qdrant store is not installed", {
        hint: "npm install @engram/store-qdrant next to @engram/cli",
      });
    }
    return loaded.qdrantStore(options);
  },
};

/** The store drivers the CLI knows. */
export const STORE_DRIVERS = Object.keys(STORES);

/**
 * The store factory for `driver` (default: the config's `store.driver`), with the config's
 * `store.options` when the driver is the configured one.
 */
export async function storeFromConfig(
  config: EngramConfig,
  driver?: string,
): Promise<StoreFactory> {
  const name = driver ?? config.store.driver;
  const load = STORES[name];
  if (!load) {
    throw new EngramError("CONFIG_INVALID", `unknown store driver "${name}"`, {
      hint: `use one of: ${STORE_DRIVERS.join(", ")} (--store or store.driver in engram.config.json)`,
    });
  }
  return load(name === config.store.driver ? config.store.options : {});
}

/**
 * The embedding provider drivers the CLI knows, each imported only when the config or
 * auto-selection asks about it, and then only its package's `/providers` entry (the descriptors:
 * `auto` checks all three in a keyword-only workspace, and the embedder code loads in `create`). A
 * driver whose package is not installed (e.g. the optional `@engram/embed-local`) resolves to
 * undefined: auto-selection skips it, naming it fails clearly.
 */
export const PROVIDERS: ProviderRegistry = {
  local: () => optional(import("@engram/embed-local/providers").then((m) => m.localProvider)),
  openai: () => optional(import("@engram/embed-openai/providers").then((m) => m.openaiProvider)),
  gemini: () => optional(import("@engram/embed-gemini/providers").then((m) => m.geminiProvider)),
};

/**
 * The reranker drivers the CLI knows (`search.rerank.provider`), each imported only when a search
 * reranks. `http` is `@engram/rerank-http`; `local` comes with the optional `@engram/embed-local`.
 */
export const RERANKERS: RerankerRegistry = {
  http: () => optional(import("@engram/rerank-http").then((m) => m.httpRerankerProvider)),
  local: () =>
    optional(import("@engram/embed-local/providers").then((m) => m.localRerankerProvider)),
};

/**
 * The language-model drivers the CLI knows (`llm.provider`), from the same provider packages as
 * the embedders and as lazily: only the config (default `none`) or `auto` makes one load.
 */
export const LANGUAGE_MODELS: LanguageModelRegistry = {
  local: () =>
    optional(import("@engram/embed-local/providers").then((m) => m.localLanguageModelProvider)),
  openai: () =>
    optional(import("@engram/embed-openai/providers").then((m) => m.openaiLanguageModelProvider)),
  gemini: () =>
    optional(import("@engram/embed-gemini/providers").then((m) => m.geminiLanguageModelProvider)),
};

async function optional<T>(loading: Promise<T>): Promise<T | undefined> {
  try {
    return await loading;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}
