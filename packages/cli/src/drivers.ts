import {
  type EngramConfig,
  EngramError,
  type ProviderRegistry,
  type StoreFactory,
} from "@engram/core";

/**
 * The store drivers the CLI knows, imported lazily so a user only loads the one they use. This is
 * the one place that knows every driver.
 */
const STORES: Record<string, (options: Record<string, unknown>) => Promise<StoreFactory>> = {
  sqlite: async (options) => {
    const { sqliteStore } = await import("@engram/store-sqlite");
    return sqliteStore(typeof options.path === "string" ? { path: options.path } : {});
  },
};

/** The store factory named by the config (`store.driver`). */
export async function storeFromConfig(config: EngramConfig): Promise<StoreFactory> {
  const load = STORES[config.store.driver];
  if (!load) {
    throw new EngramError("CONFIG_INVALID", `unknown store driver "${config.store.driver}"`, {
      hint: `set store.driver in engram.config.json to one of: ${Object.keys(STORES).join(", ")}`,
    });
  }
  return load(config.store.options);
}

/**
 * The embedding provider drivers the CLI knows, each imported only when the config or
 * auto-selection asks about it. A driver whose package is not installed (e.g. the optional
 * `@engram/embed-local`) resolves to undefined: auto-selection skips it, naming it fails clearly.
 */
export const PROVIDERS: ProviderRegistry = {
  local: () => optional(import("@engram/embed-local").then((m) => m.localProvider)),
  openai: () => optional(import("@engram/embed-openai").then((m) => m.openaiProvider)),
  gemini: () => optional(import("@engram/embed-gemini").then((m) => m.geminiProvider)),
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
