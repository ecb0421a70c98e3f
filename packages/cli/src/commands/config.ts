import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { CONFIG_FILE, EngramError, isEngramError, resolveConfig } from "@engram/core";
import { writeFileAtomic } from "@engram/core/internal";
import type { Command } from "commander";
import { palette } from "../colour.js";
import { assign, configEntries, lookup, readConfigFile } from "../config-sources.js";
import { globals } from "../context.js";
import { PROVIDERS } from "../drivers.js";
import { type Io, json, line } from "../output.js";
import { notAFolder, workspaceDir } from "../workspace.js";

/**
 * `engram config [list|get|set|unset|path|schema]`: the resolved config with where each value
 * came from, one value, a change to engram.config.json (validated before it is written), the
 * file's path, and its JSON Schema.
 */
export function registerConfig(program: Command, io: Io): void {
  const config = program
    .command("config")
    .description("show or change the workspace's settings (engram.config.json) and their sources");

  config
    .command("list", { isDefault: true })
    .description("every setting after defaults and environment, with where its value came from")
    .action(async (_flags: unknown, cmd: Command) => {
      const { dir, entries } = await resolved(cmd);
      if (globals(cmd).json) return json(io, { workspace: dir, entries });
      const c = palette(io.stdout, io.env);
      const width = Math.max(...entries.map((e) => e.key.length));
      for (const e of entries) {
        const source = e.source === "default" ? c.dim(e.source) : c.cyan(e.source);
        line(io, `${e.key.padEnd(width)}  ${JSON.stringify(e.value)}  ${source}`);
      }
    });

  config
    .command("get")
    .description("one setting (a dotted key such as search.maxResults) and its source")
    .argument("<key>", "e.g. search.maxResults, store.driver, embedding.provider")
    .action(async (key: string, _flags: unknown, cmd: Command) => {
      const { entries } = await resolved(cmd);
      const matches = entries.filter((e) => e.key === key || e.key.startsWith(`${key}.`));
      if (!matches.length) throw unknownKey(key);
      const value =
        matches.length === 1 && matches[0]?.key === key
          ? matches[0].value
          : Object.fromEntries(matches.map((e) => [e.key.slice(key.length + 1), e.value]));
      if (globals(cmd).json) return json(io, { key, value, sources: matches });
      line(io, typeof value === "string" ? value : JSON.stringify(value, null, 2));
    });

  config
    .command("set")
    .description("write a setting to engram.config.json (a JSON value, or else a string)")
    .argument("<key>", "dotted key, e.g. search.maxResults")
    .argument("<value>", 'e.g. 8, true, "rrf", ["../notes"]')
    .action(async (key: string, raw: string, _flags: unknown, cmd: Command) => {
      await write(cmd, io, key, parseValue(raw));
    });

  config
    .command("unset")
    .description("remove a setting from engram.config.json (its default applies again)")
    .argument("<key>", "dotted key, e.g. search.maxResults")
    .action(async (key: string, _flags: unknown, cmd: Command) => {
      await write(cmd, io, key, undefined);
    });

  config
    .command("path")
    .description("where the workspace's engram.config.json is, and whether it exists")
    .action(async (_flags: unknown, cmd: Command) => {
      const path = join(workspaceDir(globals(cmd).workspace), CONFIG_FILE);
      const exists = await stat(path).then(
        () => true,
        () => false,
      );
      if (globals(cmd).json) return json(io, { path, exists });
      line(io, exists ? path : `${path} (does not exist yet: every setting has its default)`);
    });

  config
    .command("schema")
    .description("print the JSON Schema of engram.config.json (init writes its URL as $schema)")
    .action(async () => {
      const file = createRequire(import.meta.url).resolve("@engram/core/engram.config.schema.json");
      io.stdout.write(await readFile(file, "utf8"));
    });
}

async function resolved(cmd: Command) {
  const options = globals(cmd);
  const dir = workspaceDir(options.workspace);
  const file = await readConfigFile(dir);
  const entries = await configEntries(file, {
    env: process.env,
    store: options.store,
    providers: PROVIDERS,
  });
  return { dir, entries };
}

async function write(cmd: Command, io: Io, key: string, value: unknown): Promise<void> {
  const dir = workspaceDir(globals(cmd).workspace);
  const info = await stat(dir).catch(() => undefined);
  if (!info) {
    throw new EngramError("WORKSPACE_MISSING", `workspace ${dir} does not exist`, {
      hint: `create it with "engram init --workspace ${dir}"`,
    });
  }
  if (!info.isDirectory()) throw notAFolder(dir);
  const path = join(dir, CONFIG_FILE);
  const before = await readConfigFile(dir);
  if (value === undefined && lookup(before, key) === undefined) {
    throw new EngramError("INVALID_ARGUMENT", `${key} is not set in ${CONFIG_FILE}`, {
      hint: "engram config lists every setting and its source",
    });
  }
  const after = assign(before, key, value);
  // Refused as engram would refuse it at start-up, before anything is written.
  try {
    resolveConfig(after, CONFIG_FILE);
  } catch (error) {
    if (!isEngramError(error)) throw error;
    throw new EngramError("CONFIG_INVALID", `not written: ${error.message}`, {
      hint: "nothing changed; engram config schema shows what each setting accepts",
    });
  }
  await writeFileAtomic(path, `${JSON.stringify(after, null, 2)}\n`);
  if (globals(cmd).json) return json(io, { path, key, value: value ?? null });
  line(
    io,
    value === undefined
      ? `Removed ${key} from ${path}`
      : `Set ${key} = ${JSON.stringify(value)} in ${path}`,
  );
}

/** `8` → 8, `true` → true, `["a"]` → ["a"], `rrf` → "rrf". */
function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function unknownKey(key: string): EngramError {
  return new EngramError("INVALID_ARGUMENT", `there is no setting "${key}"`, {
    hint: "engram config lists every setting; keys are dotted, e.g. search.maxResults",
  });
}
