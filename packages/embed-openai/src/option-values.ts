import { EngramError } from "@engram/core/driver";

/** Which config section a setting lives in: `embedding.providers.openai` or `llm.providers.openai`. */
export type SettingSection = "embedding" | "llm";

/** A `CONFIG_INVALID` error naming the setting (`openai: timeoutMs must be …`) and where it lives. */
export function invalidSetting(
  section: SettingSection,
  key: string,
  problem: string,
  fix: string,
): EngramError {
  return new EngramError("CONFIG_INVALID", `openai: ${key} ${problem}`, {
    hint: `${fix} (${section}.providers.openai.${key})`,
  });
}

/**
 * Typed readers of option values (the provider's settings, or options an integrator passed), each
 * throwing `CONFIG_INVALID` that names the setting and its section.
 */
export function settingReader(options: Readonly<Record<string, unknown>>, section: SettingSection) {
  const invalid = (key: string, problem: string, fix: string) =>
    invalidSetting(section, key, problem, fix);
  return {
    optionalString(key: string): string | undefined {
      const value = options[key];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== "string")
        throw invalid(key, "must be a string", `set ${key} to a string`);
      return value.trim() || undefined;
    },
    optionalBoolean(key: string): boolean | undefined {
      const value = options[key];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== "boolean")
        throw invalid(key, "must be true or false", `set ${key} to true or false`);
      return value;
    },
    /** A positive whole number (counts, sizes, milliseconds). */
    optionalCount(key: string): number | undefined {
      const value = options[key];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
        throw invalid(
          key,
          `must be a positive whole number, got ${JSON.stringify(value)}`,
          `fix ${key}`,
        );
      }
      return value;
    },
    /** One of `values`. */
    optionalChoice<T extends string>(key: string, values: readonly T[]): T | undefined {
      const value = options[key];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== "string" || !values.includes(value as T)) {
        throw invalid(
          key,
          `must be one of ${values.join(", ")}, got ${JSON.stringify(value)}`,
          `fix ${key}`,
        );
      }
      return value as T;
    },
    /** A JSON object of header names to string values. */
    headersOption(key = "headers"): Record<string, string> {
      const value = options[key];
      if (value === undefined || value === null) return {};
      if (typeof value !== "object" || Array.isArray(value)) {
        throw invalid(
          key,
          "must be a JSON object of header names to values",
          'e.g. {"X-Token": "…"}',
        );
      }
      const headers: Record<string, string> = {};
      for (const [name, v] of Object.entries(value)) {
        if (typeof v !== "string") {
          throw invalid(key, `value of ${name} must be a string`, `quote the value of ${name}`);
        }
        headers[name] = v;
      }
      return headers;
    },
  };
}
