import type { EngramConfig } from "../config/schema.js";
import { EngramError } from "../errors.js";
import type { Embedder } from "./embedder.js";
import { parseFallback } from "./fallback.js";
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
  const { created, ...rest } = await selectProviders(embedding, registry, env, {
    section: "embedding",
    noun: "embedding provider",
    overrides: "ENGRAM_EMBEDDING",
    meanwhile: "memory is written and searched by keywords meanwhile",
  });
  return { embedders: created, ...rest };
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
  /** What happens while a named provider cannot run, for its warning. */
  meanwhile: string;
}

/**
 * The selection rules {@link selectEmbedders} and `selectLanguageModels` share: override
 * variables, `none`, `auto` (local → openai → gemini, the first whose check passes), a named
 * provider that cannot run passed over with a warning, fallbacks skipped with a note when
 * unusable, `none` ending the fallbacks, unknown ids refused.
 */
export async function selectProviders<T>(
  section: ProviderChoice,
  registry: Readonly<Record<string, () => Promise<ProviderDescriptor<T> | undefined>>>,
  env: Env,
  scope: SelectionScope,
): Promise<{ created: T[]; notes: string[]; explicit: boolean; warnings: string[] }> {
  const notes: string[] = [];
  const warnings: string[] = [];
  const fallbackVar = `${scope.overrides}_FALLBACK`;
  const chosen = env[`${scope.overrides}_PROVIDER`]?.trim() || section.provider;
  const model = env[`${scope.overrides}_MODEL`]?.trim() || section.model;
  const fallback = env[fallbackVar]?.trim()
    ? parseFallback((env[fallbackVar] as string).split(","), fallbackVar)
    : section.fallback;
  const explicit = chosen !== "auto" && chosen !== "none";
  // A fallback nobody can load is a typo: say so now, not when the primary first fails.
  for (const id of fallback) {
    if (id !== "none" && !registry[id]) throw unknownProvider(id, registry, scope);
  }
  if (chosen === "none") {
    return { created: [], notes: [`${scope.section}.provider is none`], explicit, warnings };
  }

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
  /** What the provider creates if its check passes and creating works; else why not. */
  const tryCreate = async (
    provider: ProviderDescriptor<T>,
    primary: boolean,
  ): Promise<{ made: T } | { reason: string }> => {
    const settings = settingsOf(provider, primary);
    const check = await provider.check(settings);
    if (!check.ok) return { reason: check.reason };
    try {
      return { made: await provider.create(settings) };
    } catch (error) {
      return { reason: (error as Error).message };
    }
  };

  const created: T[] = [];
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
        created.push(await provider.create(settings));
        primaryId = id;
        break;
      }
      notes.push(`${id}: ${check.reason}`);
    }
    if (!created.length) return { created, notes, explicit, warnings };
  } else {
    const provider = await load(registry, chosen);
    if (!provider) throw unknownProvider(chosen, registry, scope);
    primaryId = chosen;
    const attempt = await tryCreate(provider, true);
    if ("made" in attempt) created.push(attempt.made);
    else {
      notes.push(`${chosen}: ${attempt.reason}`);
      warnings.push(
        `${scope.noun} "${chosen}" cannot run: ${attempt.reason} (${
          fallback.length ? "trying the fallbacks; " : ""
        }${scope.meanwhile}; set it up as @engram/embed-${chosen}'s README says, or set ${scope.section}.provider to "auto" or "none")`,
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
    const attempt = await tryCreate(provider, false);
    if ("made" in attempt) created.push(attempt.made);
    else notes.push(`fallback ${id}: ${attempt.reason}`);
  }
  return { created, notes, explicit, warnings };
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
