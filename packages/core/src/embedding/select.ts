import type { EngramConfig } from "../config/schema.js";
import { EngramError } from "../errors.js";
import type { Embedder } from "./embedder.js";
import {
  type EmbeddingProvider,
  type ProviderDescriptor,
  resolveProviderSettings,
  type SettingsScope,
} from "./provider.js";

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
  const { created, notes } = await selectProviders(embedding, registry, env, {
    section: "embedding",
    noun: "embedding provider",
    overrides: "ENGRAM_EMBEDDING",
  });
  return { embedders: created, notes };
}

/** A config section that chooses providers (`embedding`, `llm`). */
export interface ProviderChoice {
  /** `auto`, `none`, or a provider id. */
  provider: string;
  /** The primary's model (shorthand for `providers.<id>.model`). */
  model?: string | undefined;
  fallback: readonly string[];
  providers: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** How {@link selectProviders} names things for one section. */
export interface SelectionScope extends SettingsScope {
  /** How messages name a provider, e.g. `embedding provider`. */
  noun: string;
  /** Prefix of the override variables: `<overrides>_PROVIDER`, `_MODEL`, `_FALLBACK`. */
  overrides: string;
}

/**
 * The selection rules {@link selectEmbedders} and `selectLanguageModels` share: override
 * variables, `none`, `auto` (local → openai → gemini, the first whose check passes), an explicit
 * provider that must be usable, fallbacks skipped with a note when unusable.
 */
export async function selectProviders<T>(
  section: ProviderChoice,
  registry: Readonly<Record<string, () => Promise<ProviderDescriptor<T> | undefined>>>,
  env: Env,
  scope: SelectionScope,
): Promise<{ created: T[]; notes: string[] }> {
  const notes: string[] = [];
  const chosen = env[`${scope.overrides}_PROVIDER`]?.trim() || section.provider;
  const model = env[`${scope.overrides}_MODEL`]?.trim() || section.model;
  const fallbackVar = env[`${scope.overrides}_FALLBACK`]?.trim();
  const fallback = fallbackVar
    ? fallbackVar
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : section.fallback;
  if (chosen === "none") return { created: [], notes: [`${scope.section}.provider is none`] };

  const settingsOf = (provider: ProviderDescriptor<T>, primary: boolean) =>
    resolveProviderSettings(
      provider,
      {
        ...(section.providers[provider.id] ?? {}),
        ...(primary && model && provider.settings.model ? { model } : {}),
      },
      env,
      scope,
    );

  let primary: { provider: ProviderDescriptor<T>; settings: Record<string, unknown> } | undefined;
  if (chosen === "auto") {
    for (const id of AUTO_PROVIDER_ORDER) {
      const provider = await load(registry, id);
      if (!provider) {
        notes.push(`${id}: driver not installed`);
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
    if (!primary) return { created: [], notes };
  } else {
    const provider = await load(registry, chosen);
    if (!provider) throw unknownProvider(chosen, registry, scope);
    const settings = settingsOf(provider, true);
    const check = await provider.check(settings);
    if (!check.ok) {
      throw new EngramError(
        "CONFIG_INVALID",
        `${scope.noun} "${chosen}" cannot run: ${check.reason}`,
        {
          hint: `set it up (see @engram/embed-${chosen}'s README), or set ${scope.section}.provider to "auto" or "none"`,
        },
      );
    }
    primary = { provider, settings };
  }

  const created = [await primary.provider.create(primary.settings)];
  for (const id of fallback) {
    if (id === primary.provider.id) continue;
    const provider = await load(registry, id);
    if (!provider) {
      notes.push(`fallback ${id}: driver not installed`);
      continue;
    }
    const settings = settingsOf(provider, false);
    const check = await provider.check(settings);
    if (!check.ok) {
      notes.push(`fallback ${id}: ${check.reason}`);
      continue;
    }
    try {
      created.push(await provider.create(settings));
    } catch (error) {
      notes.push(`fallback ${id}: ${(error as Error).message}`);
    }
  }
  return { created, notes };
}

async function load<T>(
  registry: Readonly<Record<string, () => Promise<T | undefined>>>,
  id: string,
): Promise<T | undefined> {
  const loader = registry[id];
  return loader ? loader() : undefined;
}

function unknownProvider(
  id: string,
  registry: Readonly<Record<string, unknown>>,
  scope: SelectionScope,
): EngramError {
  const known = ["none", "auto", ...Object.keys(registry)].join(", ");
  return new EngramError("CONFIG_INVALID", `${scope.noun} "${id}" is not available`, {
    hint: registry[id] ? `install @engram/embed-${id}` : `use one of: ${known}`,
  });
}
