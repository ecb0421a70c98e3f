import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { EngramError } from "../errors.js";
import { CONFIG_FILE } from "../workspace/layout.js";
import { configSchema, type EngramConfig, type EngramConfigInput } from "./schema.js";

/**
 * Validate a config object and fill in defaults. Throws `CONFIG_INVALID` listing every problem
 * with its key path (`search.maxResults: expected number, received string`).
 */
export function resolveConfig(input: EngramConfigInput = {}, origin = "config"): EngramConfig {
  const parsed = v.safeParse(configSchema, input);
  if (parsed.success) return parsed.output;
  throw new EngramError("CONFIG_INVALID", `${origin} is invalid: ${formatIssues(parsed.issues)}`, {
    hint: `fix ${origin} (every key is optional; delete a key to use its default)`,
  });
}

/**
 * Read `<workspace>/engram.config.json` (absent: all defaults), merge `overrides` over it (one
 * level deep per section) and validate.
 */
export async function loadConfig(
  workspace: string,
  overrides: EngramConfigInput = {},
): Promise<EngramConfig> {
  const path = join(workspace, CONFIG_FILE);
  let raw: string | undefined;
  try {
    // Editors on Windows may start the file with a UTF-8 byte-order mark; JSON.parse refuses it.
    raw = (await readFile(path, "utf8")).replace(/^\uFEFF/, "");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR") {
      throw new EngramError("CONFIG_INVALID", `${path} is a folder, not a file`, {
        hint: `remove that folder, or write the config (a JSON object) to ${CONFIG_FILE}`,
      });
    }
    if (code !== "ENOENT") throw error;
  }
  let fromFile: Record<string, unknown> = {};
  if (raw !== undefined) {
    try {
      fromFile = JSON.parse(raw) as Record<string, unknown>;
    } catch (error) {
      throw new EngramError(
        "CONFIG_INVALID",
        `${CONFIG_FILE} is not valid JSON: ${(error as Error).message}`,
        {
          hint: `fix the JSON syntax in ${path}, or delete the file to use defaults`,
          cause: error,
        },
      );
    }
    if (typeof fromFile !== "object" || fromFile === null || Array.isArray(fromFile)) {
      throw new EngramError("CONFIG_INVALID", `${CONFIG_FILE} must hold a JSON object`, {
        hint: `write {} in ${path} to use defaults`,
      });
    }
  }
  return resolveConfig(mergeSections(fromFile, overrides as Record<string, unknown>), CONFIG_FILE);
}

function mergeSections(
  base: Record<string, unknown>,
  overrides: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const prev = out[key];
    out[key] =
      isPlainObject(prev) && isPlainObject(value) ? { ...prev, ...value } : (value as unknown);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function formatIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.map((issue) => `${v.getDotPath(issue) ?? "(root)"}: ${issue.message}`).join("; ");
}
