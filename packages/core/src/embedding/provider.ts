import { EngramError } from "../errors.js";
import type { Embedder } from "./embedder.js";

/** One setting of an embedding provider, as config key and environment variables. */
export interface ProviderSetting {
  type: "string" | "number" | "boolean" | "json";
  /**
   * Conventional environment variables (e.g. `OPENAI_API_KEY`), read when neither
   * `ENGRAM_<PROVIDER>_<SETTING>` nor the config sets the value; the first one set wins.
   */
  env?: readonly string[];
  /** Never shown in status output or errors (API keys). */
  secret?: boolean;
  /**
   * For settings whose meaning differs between a provider's embeddings and its language model
   * (the `model`, a model file): read only from the section's own variable
   * (`ENGRAM_LLM_<PROVIDER>_<SETTING>`), never from the provider-wide `ENGRAM_<PROVIDER>_<SETTING>`.
   */
  scoped?: boolean;
  /** One line for the README and for `engram status`. */
  description: string;
}

/** Resolved settings of a provider: setting name → value (absent when unset). */
export type ProviderSettings = Record<string, unknown>;

/**
 * A provider driver as the config and auto-selection see it: its settings, whether it can run,
 * and how to create what it provides ({@link EmbeddingProvider}: an embedder;
 * `LanguageModelProvider`: a language model). Loading the descriptor must be cheap: import the
 * backend SDK inside `create`.
 */
export interface ProviderDescriptor<T> {
  /** `openai`, `gemini`, `local`, …: the name used in `provider` and `fallback`. */
  readonly id: string;
  /** Every setting the provider reads (`model` included). */
  readonly settings: Readonly<Record<string, ProviderSetting>>;
  /**
   * Whether the provider can run with these settings (an API key is set, a model file exists),
   * and if not why. Auto-selection takes the first provider that can. Must not call the network.
   */
  check(settings: ProviderSettings): Promise<ProviderCheck> | ProviderCheck;
  /** Create it (may read a model header; loading weights should wait for first use). */
  create(settings: ProviderSettings): Promise<T>;
}

/**
 * An embedding provider driver, as the config and auto-selection see it. A driver package exports
 * one (e.g. `openaiProvider` from `@engram/embed-openai`); an integrator can write their own.
 * Loading the descriptor must be cheap: import the backend SDK inside `create`.
 */
export interface EmbeddingProvider extends ProviderDescriptor<Embedder> {}

/**
 * Where a provider's settings live: the config section (`embedding`, `llm`) and, for `llm`, the
 * prefix of its own variables (`ENGRAM_LLM_<PROVIDER>_<SETTING>`).
 */
export interface SettingsScope {
  /** The config section: settings are `<section>.providers.<id>.<setting>`. */
  section: string;
  /** Variables `ENGRAM_<envPrefix>_<PROVIDER>_<SETTING>`, read before the provider-wide ones. */
  envPrefix?: string;
  /** How messages name the provider (default `<section> provider`). */
  noun?: string;
}

const EMBEDDING_SCOPE: SettingsScope = { section: "embedding", noun: "embedding provider" };

/** The answer of {@link EmbeddingProvider.check}. */
export type ProviderCheck = { ok: true } | { ok: false; reason: string };

/**
 * `ENGRAM_<PROVIDER>_<SETTING>` (`baseUrl` → `BASE_URL`, `modelPath` → `MODEL_PATH`), or with a
 * prefix `ENGRAM_<PREFIX>_<PROVIDER>_<SETTING>`.
 */
export function envName(providerId: string, setting: string, prefix?: string): string {
  const snake = (s: string) =>
    s
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .toUpperCase();
  return `ENGRAM_${prefix ? `${snake(prefix)}_` : ""}${snake(providerId)}_${snake(setting)}`;
}

/**
 * A provider's settings from, in order of precedence: `ENGRAM_<PROVIDER>_<SETTING>` environment
 * variables (so a shell can point engram at Ollama, vLLM or LM Studio), the config (`configured`),
 * then the provider's conventional variables (`OPENAI_API_KEY`, `GEMINI_API_KEY`, …). With a
 * `scope` that has an `envPrefix` (the `llm` section), `ENGRAM_LLM_<PROVIDER>_<SETTING>` comes
 * first, and the provider-wide variable is skipped for `scoped` settings.
 *
 * @throws EngramError `CONFIG_INVALID` for an unknown setting or a value of the wrong type.
 */
export function resolveProviderSettings(
  provider: Pick<ProviderDescriptor<unknown>, "id" | "settings">,
  configured: Readonly<Record<string, unknown>> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
  scope: SettingsScope = EMBEDDING_SCOPE,
): ProviderSettings {
  const known = Object.keys(provider.settings);
  const noun = scope.noun ?? `${scope.section} provider`;
  for (const key of Object.keys(configured)) {
    if (!provider.settings[key]) {
      throw new EngramError("CONFIG_INVALID", `${noun} "${provider.id}" has no setting "${key}"`, {
        hint: `its settings are: ${known.join(", ")}`,
      });
    }
  }
  const settings: ProviderSettings = {};
  for (const [name, spec] of Object.entries(provider.settings)) {
    const variables = [
      ...(scope.envPrefix ? [envName(provider.id, name, scope.envPrefix)] : []),
      ...(scope.envPrefix && spec.scoped ? [] : [envName(provider.id, name)]),
    ];
    const engramVar = variables.find((variable) => nonEmpty(env[variable]) !== undefined);
    const fromEngram = engramVar ? nonEmpty(env[engramVar]) : undefined;
    if (engramVar && fromEngram !== undefined) {
      settings[name] = parseSetting(fromEngram, spec, engramVar);
      continue;
    }
    const value = configured[name];
    if (value !== undefined && value !== null) {
      settings[name] = checkType(value, spec, `${scope.section}.providers.${provider.id}.${name}`);
      continue;
    }
    for (const variable of spec.env ?? []) {
      const fromEnv = nonEmpty(env[variable]);
      if (fromEnv !== undefined) {
        settings[name] = parseSetting(fromEnv, spec, variable);
        break;
      }
    }
  }
  return settings;
}

/** Settings with secrets masked, for status output and logs. */
export function redactSettings(
  provider: Pick<ProviderDescriptor<unknown>, "settings">,
  settings: ProviderSettings,
): ProviderSettings {
  return Object.fromEntries(
    Object.entries(settings).map(([k, v]) => [k, provider.settings[k]?.secret ? "***" : v]),
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function parseSetting(raw: string, spec: ProviderSetting, where: string): unknown {
  if (spec.type === "string") return raw;
  if (spec.type === "number") {
    const n = Number(raw);
    if (!Number.isFinite(n)) throw badValue(where, raw, "a number");
    return n;
  }
  if (spec.type === "boolean") {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    throw badValue(where, raw, "true or false");
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw badValue(where, raw, "JSON");
  }
}

function checkType(value: unknown, spec: ProviderSetting, where: string): unknown {
  const ok =
    spec.type === "json"
      ? true
      : spec.type === "number"
        ? typeof value === "number" && Number.isFinite(value)
        : typeof value === spec.type;
  if (!ok) throw badValue(where, JSON.stringify(value), `a ${spec.type}`);
  return value;
}

function badValue(where: string, raw: string, expected: string): EngramError {
  return new EngramError("CONFIG_INVALID", `${where} must be ${expected}, got ${raw}`, {
    hint: `fix ${where}`,
  });
}
