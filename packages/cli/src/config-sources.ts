import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CONFIG_FILE, EngramError, type ProviderRegistry, resolveConfig } from "@engram/core";
import { envName } from "@engram/core/internal";

/** One resolved setting: its dotted key, its value and where the value came from. */
export interface ConfigEntry {
  key: string;
  value: unknown;
  /** `engram.config.json`, `default`, `env NAME` or `--store`. */
  source: string;
}

/** `engram.config.json` as written (absent: `{}`), or a `CONFIG_INVALID` naming the problem. */
export async function readConfigFile(workspace: string): Promise<Record<string, unknown>> {
  const path = join(workspace, CONFIG_FILE);
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new EngramError(
      "CONFIG_INVALID",
      `${CONFIG_FILE} is not valid JSON: ${(error as Error).message}`,
      {
        hint: `fix the JSON syntax in ${path}`,
      },
    );
  }
  if (!isObject(parsed)) {
    throw new EngramError("CONFIG_INVALID", `${CONFIG_FILE} must hold a JSON object`, {
      hint: `write {} in ${path} to use defaults`,
    });
  }
  return parsed;
}

/**
 * Every setting of the workspace's config after defaults, each with its source; then what the
 * environment changes on top: `ENGRAM_STORE` (or `--store`) for the store driver, and each
 * installed embedding provider's settings from `ENGRAM_<PROVIDER>_<SETTING>` or its conventional
 * variables (`OPENAI_API_KEY`, …). Secrets are shown as `***`.
 */
export async function configEntries(
  file: Record<string, unknown>,
  options: { env: NodeJS.ProcessEnv; store?: string | undefined; providers: ProviderRegistry },
): Promise<ConfigEntry[]> {
  const resolved = resolveConfig(file, CONFIG_FILE) as unknown as Record<string, unknown>;
  const entries: ConfigEntry[] = [];
  for (const [key, value] of leaves(resolved)) {
    entries.push({ key, value, source: lookup(file, key) === undefined ? "default" : CONFIG_FILE });
  }
  const driver = options.store ?? (options.env.ENGRAM_STORE || undefined);
  if (driver !== undefined) {
    override(entries, {
      key: "store.driver",
      value: driver,
      source: options.store !== undefined ? "--store" : "env ENGRAM_STORE",
    });
  }
  for (const [id, load] of Object.entries(options.providers)) {
    const provider = await load().catch(() => undefined);
    if (!provider) continue;
    for (const [name, spec] of Object.entries(provider.settings)) {
      const key = `embedding.providers.${id}.${name}`;
      const variable = [envName(id, name), ...(spec.env ?? [])].find((v) => options.env[v]?.trim());
      // ENGRAM_<PROVIDER>_<SETTING> beats the file; conventional variables only fill gaps.
      if (!variable || (variable !== envName(id, name) && lookup(file, key) !== undefined))
        continue;
      const value = spec.secret ? "***" : options.env[variable]?.trim();
      override(entries, { key, value, source: `env ${variable}` });
    }
  }
  return entries;
}

/** The value at a dotted `key` of `object`, or undefined. */
export function lookup(object: unknown, key: string): unknown {
  let at: unknown = object;
  for (const part of key.split(".")) {
    if (!isObject(at) || !(part in at)) return undefined;
    at = at[part];
  }
  return at;
}

/** A copy of `object` with `value` at the dotted `key` (undefined removes it; empty parents go). */
export function assign(
  object: Record<string, unknown>,
  key: string,
  value: unknown,
): Record<string, unknown> {
  const [head, ...rest] = key.split(".") as [string, ...string[]];
  const copy = { ...object };
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else copy[head] = value;
    return copy;
  }
  const child = assign(isObject(copy[head]) ? copy[head] : {}, rest.join("."), value);
  if (Object.keys(child).length === 0) delete copy[head];
  else copy[head] = child;
  return copy;
}

function override(entries: ConfigEntry[], entry: ConfigEntry): void {
  const at = entries.findIndex((e) => e.key === entry.key);
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
}

/** Dotted paths of the leaves of `value`: scalars, arrays and empty objects. */
function* leaves(value: Record<string, unknown>, prefix = ""): Generator<[string, unknown]> {
  for (const [key, child] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (isObject(child) && Object.keys(child).length > 0) yield* leaves(child, path);
    else yield [path, child];
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
