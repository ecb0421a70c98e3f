import { type Embedder, type EngramConfig, EngramError, type StoreFactory } from "@engram/core";

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
 * The embedding provider named by the config. `auto` picks the first available provider and
 * falls back to none (keyword search, reported as degraded); `none` never embeds.
 */
export async function embedderFromConfig(config: EngramConfig): Promise<Embedder | null> {
  const provider = config.embedding.provider;
  if (provider === "none" || provider === "auto") return null;
  throw new EngramError("CONFIG_INVALID", `embedding provider "${provider}" is not available`, {
    hint: 'set embedding.provider to "auto" or "none" in engram.config.json',
  });
}
