import type { EngramConfig } from "../config/schema.js";
import { EngramError } from "../errors.js";
import type { Embedder } from "./embedder.js";
import { parseFallback } from "./fallback.js";
import { type EmbeddingProvider, resolveProviderSettings } from "./provider.js";

/**
 * Provider drivers by id, each loaded on demand; a loader resolves to undefined when its package
 * is not installed. The CLI passes the built-in drivers; an integrator can add their own.
 */
export type ProviderRegistry = Readonly<
  Record<string, () => Promise<EmbeddingProvider | undefined>>
>;

/** The order `provider: "auto"` tries: a local model first, then the remote APIs. */
export const AUTO_PROVIDER_ORDER = ["local", "openai", "gemini"] as const;

/** What {@link selectEmbedders} chose and why. */
export interface EmbedderSelection {
  /** The primary first, then the usable fallbacks; empty: keyword search only. */
  embedders: Embedder[];
  /** Why providers were passed over (missing key, missing model file, package not installed). */
  notes: string[];
  /**
   * True when the config (or environment) names the provider, rather than `auto` or `none`: the
   * user asked for it, so an index built with another provider may be re-embedded with it.
   */
  explicit: boolean;
  /**
   * Problems the user should see once (not only in `status`): a provider named explicitly that
   * cannot run. Writing and keyword search go on regardless.
   */
  warnings: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Choose and create the embedders the config asks for. `ENGRAM_EMBEDDING_PROVIDER`,
 * `ENGRAM_EMBEDDING_MODEL` and `ENGRAM_EMBEDDING_FALLBACK` (comma-separated) override the config;
 * each provider's settings come from `ENGRAM_<PROVIDER>_<SETTING>`, the config, then the
 * provider's conventional variables (see {@link resolveProviderSettings}).
 *
 * `auto` takes the first of local → openai → gemini whose check passes, and none (keyword search,
 * reported as degraded) when none does. A provider named explicitly that cannot run (no key, no
 * model file) is passed over with a warning naming what is missing, and the fallbacks are tried:
 * writing memory and keyword search never depend on a provider. `none` in `fallback` ends the list
 * (keyword search when the providers before it fail). An unknown provider id is a config error.
 */
export async function selectEmbedders(
  embedding: EngramConfig["embedding"],
  registry: ProviderRegistry,
  env: Env = process.env,
): Promise<EmbedderSelection> {
  const notes: string[] = [];
  const warnings: string[] = [];
  const chosen = env.ENGRAM_EMBEDDING_PROVIDER?.trim() || embedding.provider;
  const model = env.ENGRAM_EMBEDDING_MODEL?.trim() || embedding.model;
  const fallback = env.ENGRAM_EMBEDDING_FALLBACK?.trim()
    ? parseFallback(env.ENGRAM_EMBEDDING_FALLBACK.split(","), "ENGRAM_EMBEDDING_FALLBACK")
    : embedding.fallback;
  const explicit = chosen !== "auto" && chosen !== "none";
  // A fallback nobody can load is a typo: say so now, not when the primary first fails.
  for (const id of fallback) {
    if (id !== "none" && !registry[id]) throw unknownProvider(id, registry);
  }
  if (chosen === "none") {
    return { embedders: [], notes: ["embedding.provider is none"], explicit, warnings };
  }

  const settingsOf = (provider: EmbeddingProvider, primary: boolean) =>
    resolveProviderSettings(
      provider,
      {
        ...(embedding.providers[provider.id] ?? {}),
        ...(primary && model && provider.settings.model ? { model } : {}),
      },
      env,
    );
  /** The provider's embedder if its check passes and it can be created; else why not. */
  const tryCreate = async (
    provider: EmbeddingProvider,
    primary: boolean,
  ): Promise<{ embedder: Embedder } | { reason: string }> => {
    const settings = settingsOf(provider, primary);
    const check = await provider.check(settings);
    if (!check.ok) return { reason: check.reason };
    try {
      return { embedder: await provider.create(settings) };
    } catch (error) {
      return { reason: (error as Error).message };
    }
  };

  const embedders: Embedder[] = [];
  let primaryId: string | undefined;
  if (chosen === "auto") {
    for (const id of AUTO_PROVIDER_ORDER) {
      const provider = await load(registry, id);
      if (!provider) {
        notes.push(`${id}: driver not installed (@engram/embed-${id})`);
        continue;
      }
      const settings = settingsOf(provider, true);
      const check = await provider.check(settings);
      if (check.ok) {
        embedders.push(await provider.create(settings));
        primaryId = id;
        break;
      }
      notes.push(`${id}: ${check.reason}`);
    }
    if (!embedders.length) return { embedders, notes, explicit, warnings };
  } else {
    const provider = await load(registry, chosen);
    if (!provider) throw unknownProvider(chosen, registry);
    primaryId = chosen;
    const created = await tryCreate(provider, true);
    if ("embedder" in created) embedders.push(created.embedder);
    else {
      notes.push(`${chosen}: ${created.reason}`);
      warnings.push(
        `embedding provider "${chosen}" cannot run: ${created.reason} (${
          fallback.length ? "trying the fallbacks; " : ""
        }memory is written and searched by keywords meanwhile; set it up as @engram/embed-${chosen}'s README says, or set embedding.provider to "auto" or "none")`,
      );
    }
  }

  for (const id of fallback) {
    if (id === "none") break;
    if (id === primaryId) continue;
    const provider = await load(registry, id);
    if (!provider) {
      notes.push(`fallback ${id}: driver not installed (@engram/embed-${id})`);
      continue;
    }
    const created = await tryCreate(provider, false);
    if ("embedder" in created) embedders.push(created.embedder);
    else notes.push(`fallback ${id}: ${created.reason}`);
  }
  return { embedders, notes, explicit, warnings };
}

async function load(
  registry: ProviderRegistry,
  id: string,
): Promise<EmbeddingProvider | undefined> {
  const loader = registry[id];
  return loader ? loader() : undefined;
}

function unknownProvider(id: string, registry: ProviderRegistry): EngramError {
  const known = ["none", "auto", ...Object.keys(registry)].join(", ");
  return new EngramError("CONFIG_INVALID", `embedding provider "${id}" is not available`, {
    hint: registry[id] ? `install @engram/embed-${id}` : `use one of: ${known}`,
  });
}
