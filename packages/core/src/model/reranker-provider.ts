import {
  type ProviderCheck,
  type ProviderSetting,
  type ProviderSettings,
  resolveProviderSettings,
} from "../embedding/provider.js";
import { EngramError } from "../errors.js";
import type { Reranker } from "./reranker.js";

/**
 * A reranker driver, as the config sees it (`search.rerank.provider`): the HTTP `/v1/rerank`
 * driver (`@engram/rerank-http`), the local GGUF one (`@engram/embed-local`), or an integrator's
 * own. Its settings come from `ENGRAM_RERANK_<PROVIDER>_<SETTING>`, then
 * `search.rerank.providers.<id>`, then the setting's conventional variables. Loading the
 * descriptor must be cheap: load the backend inside `create`.
 */
export interface RerankerProvider {
  /** `http`, `local`, …: the name used in `search.rerank.provider`. */
  readonly id: string;
  readonly settings: Readonly<Record<string, ProviderSetting>>;
  /** Whether the provider can run with these settings, and if not why. Must not call the network. */
  check(settings: ProviderSettings): Promise<ProviderCheck> | ProviderCheck;
  create(settings: ProviderSettings): Promise<Reranker>;
}

/** Reranker drivers by id, each loaded on demand (undefined: its package is not installed). */
export type RerankerRegistry = Readonly<
  Record<string, () => Promise<RerankerProvider | undefined>>
>;

/** The reranker part of the config (`search.rerank`). */
export interface RerankConfig {
  provider: string;
  providers: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/**
 * The reranker `search.rerank.provider` names (`ENGRAM_RERANK_PROVIDER` overrides it), created
 * with its settings; null for `none`.
 *
 * @throws EngramError `CONFIG_INVALID` when the provider is unknown, not installed, or cannot run
 *   with its settings (the message says what is missing).
 */
export async function selectReranker(
  config: RerankConfig,
  registry: RerankerRegistry,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<Reranker | null> {
  const id = env.ENGRAM_RERANK_PROVIDER?.trim() || config.provider;
  if (id === "none") return null;
  const provider = await registry[id]?.();
  if (!provider) {
    throw new EngramError("CONFIG_INVALID", `reranker "${id}" is not available`, {
      hint: registry[id]
        ? `install the package that provides it (http: @engram/rerank-http, local: @engram/embed-local)`
        : `set search.rerank.provider to one of: none, ${Object.keys(registry).join(", ")}`,
    });
  }
  const settings = rerankerSettings(provider, config.providers[id] ?? {}, env);
  const check = await provider.check(settings);
  if (!check.ok) {
    throw new EngramError("CONFIG_INVALID", `reranker "${id}" cannot run: ${check.reason}`, {
      hint: `set search.rerank.providers.${id} (or ENGRAM_RERANK_${id.toUpperCase()}_* variables), or set search.rerank.provider to "none"`,
    });
  }
  return provider.create(settings);
}

/**
 * A reranker's settings: `ENGRAM_RERANK_<ID>_<SETTING>`, then `search.rerank.providers.<id>`,
 * then the setting's conventional variables. Never the provider-wide `ENGRAM_<ID>_<SETTING>`:
 * `ENGRAM_LOCAL_MODEL_PATH` names the embedding model, not the reranker.
 */
export function rerankerSettings(
  provider: Pick<RerankerProvider, "id" | "settings">,
  configured: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ProviderSettings {
  const scoped = Object.fromEntries(
    Object.entries(provider.settings).map(([name, spec]) => [name, { ...spec, scoped: true }]),
  );
  return resolveProviderSettings({ id: provider.id, settings: scoped }, configured, env, {
    section: "search.rerank",
    envPrefix: "RERANK",
    noun: "reranker",
  });
}
