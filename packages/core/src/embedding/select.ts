import type { EngramConfig } from "../config/schema.js";
import { EngramError } from "../errors.js";
import type { Embedder } from "./embedder.js";
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
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Choose and create the embedders the config asks for. `ENGRAM_EMBEDDING_PROVIDER`,
 * `ENGRAM_EMBEDDING_MODEL` and `ENGRAM_EMBEDDING_FALLBACK` (comma-separated) override the config;
 * each provider's settings come from `ENGRAM_<PROVIDER>_<SETTING>`, the config, then the
 * provider's conventional variables (see {@link resolveProviderSettings}).
 *
 * `auto` takes the first of local → openai → gemini whose check passes, and none (keyword search,
 * reported as degraded) when none does. A provider named explicitly must be usable: otherwise a
 * `CONFIG_INVALID` error says what is missing. Unusable fallbacks are skipped with a note.
 */
export async function selectEmbedders(
  embedding: EngramConfig["embedding"],
  registry: ProviderRegistry,
  env: Env = process.env,
): Promise<EmbedderSelection> {
  const notes: string[] = [];
  const chosen = env.ENGRAM_EMBEDDING_PROVIDER?.trim() || embedding.provider;
  const model = env.ENGRAM_EMBEDDING_MODEL?.trim() || embedding.model;
  const fallback = env.ENGRAM_EMBEDDING_FALLBACK?.trim()
    ? env.ENGRAM_EMBEDDING_FALLBACK.split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : embedding.fallback;
  if (chosen === "none") return { embedders: [], notes: ["embedding.provider is none"] };

  const settingsOf = (provider: EmbeddingProvider, primary: boolean) =>
    resolveProviderSettings(
      provider,
      {
        ...(embedding.providers[provider.id] ?? {}),
        ...(primary && model && provider.settings.model ? { model } : {}),
      },
      env,
    );

  let primary: { provider: EmbeddingProvider; settings: Record<string, unknown> } | undefined;
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
        primary = { provider, settings };
        break;
      }
      notes.push(`${id}: ${check.reason}`);
    }
    if (!primary) return { embedders: [], notes };
  } else {
    const provider = await load(registry, chosen);
    if (!provider) throw unknownProvider(chosen, registry);
    const settings = settingsOf(provider, true);
    const check = await provider.check(settings);
    if (!check.ok) {
      throw new EngramError(
        "CONFIG_INVALID",
        `embedding provider "${chosen}" cannot run: ${check.reason}`,
        {
          hint: `set it up (see @engram/embed-${chosen}'s README), or set embedding.provider to "auto" or "none"`,
        },
      );
    }
    primary = { provider, settings };
  }

  const embedders = [await primary.provider.create(primary.settings)];
  for (const id of fallback) {
    if (id === primary.provider.id) continue;
    const provider = await load(registry, id);
    if (!provider) {
      notes.push(`fallback ${id}: driver not installed (@engram/embed-${id})`);
      continue;
    }
    const settings = settingsOf(provider, false);
    const check = await provider.check(settings);
    if (!check.ok) {
      notes.push(`fallback ${id}: ${check.reason}`);
      continue;
    }
    try {
      embedders.push(await provider.create(settings));
    } catch (error) {
      notes.push(`fallback ${id}: ${(error as Error).message}`);
    }
  }
  return { embedders, notes };
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
