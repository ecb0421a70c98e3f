import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CONFIG_FILE, EngramError, INDEX_DIR, MEMORY_DIR, MEMORY_FILE } from "@engram/core";
import {
  isLayoutPresetName,
  LAYOUT_PRESET_NAMES,
  type LayoutPreset,
  layoutPreset,
  writeFileAtomic,
} from "@engram/core/internal";
import type { Command } from "commander";
import { globals } from "../context.js";
import { type Io, json, line } from "../output.js";
import { notAFolder, workspaceDir } from "../workspace.js";

const MEMORY_TEMPLATE = `# Long-term Memory

Curated facts, preferences and decisions worth keeping. Daily notes go to memory/YYYY-MM-DD.md.
`;

/** `engram init`: create the workspace skeleton; never overwrites anything. */
export function registerInit(program: Command, io: Io): void {
  program
    .command("init")
    .description(
      "create a workspace: MEMORY.md, memory/ and the .engram/ index folder (never overwrites)",
    )
    .option(
      "--layout <name>",
      `create a layout's skeleton and record it in ${CONFIG_FILE}: ${LAYOUT_PRESET_NAMES.join(" | ")}`,
    )
    .action(async (flags: { layout?: string }, cmd: Command) => {
      const options = globals(cmd);
      if (flags.layout !== undefined && !isLayoutPresetName(flags.layout)) {
        throw new EngramError("INVALID_ARGUMENT", `unknown layout "${flags.layout}"`, {
          hint: `use --layout ${LAYOUT_PRESET_NAMES.join(", --layout ")}`,
        });
      }
      const preset = flags.layout === undefined ? null : layoutPreset(flags.layout);
      const dir = workspaceDir(options.workspace);
      const created: string[] = [];
      const existing = await stat(dir).catch(() => undefined);
      if (existing && !existing.isDirectory()) throw notAFolder(dir);
      await mkdir(dir, { recursive: true });
      for (const folder of [MEMORY_DIR, INDEX_DIR]) {
        if ((await mkdir(join(dir, folder), { recursive: true })) !== undefined)
          created.push(`${folder}/`);
      }
      const files = preset?.skeleton ?? [{ path: MEMORY_FILE, content: MEMORY_TEMPLATE }];
      for (const file of files) {
        if (await createIfMissing(dir, file.path, file.content)) created.push(file.path);
      }
      const config = preset
        ? await recordLayout(dir, preset)
        : (await createIfMissing(dir, CONFIG_FILE, configTemplate({})))
          ? "created"
          : null;
      if (config === "created" || config === "updated") created.push(CONFIG_FILE);
      if (options.json) {
        return json(io, { workspace: dir, layout: preset?.name ?? null, created });
      }
      line(
        io,
        created.length
          ? `Initialised ${dir}${preset ? ` (layout ${preset.name})` : ""}: created ${created.join(", ")}`
          : `${dir} is already a workspace; nothing changed`,
      );
      line(io, `Next: engram add "something to remember" && engram search "remember"`);
    });
}

/**
 * Where editors find the JSON Schema of engram.config.json: the copy in the published
 * @engram/core of the installed version, served by unpkg as it serves every npm package's files
 * (`engram config schema` prints the same schema for offline use).
 */
export function configSchemaUrl(): string {
  const { version } = createRequire(import.meta.url)("@engram/core/package.json") as {
    version: string;
  };
  return `https://unpkg.com/@engram/core@${version}/engram.config.schema.json`;
}

/** A new engram.config.json: `$schema` for editors, then `settings`. */
function configTemplate(settings: Record<string, unknown>): string {
  return `${JSON.stringify({ $schema: configSchemaUrl(), ...settings }, null, 2)}\n`;
}

/** Writes `content` to `rel` unless something is there already; true when it wrote. */
async function createIfMissing(dir: string, rel: string, content: string): Promise<boolean> {
  const abs = join(dir, ...rel.split("/"));
  await mkdir(dirname(abs), { recursive: true });
  try {
    await writeFile(abs, content, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/**
 * Records `layout` and its tier map in `engram.config.json`, keeping every other key. A config
 * already naming this layout is left alone; one naming another layout or its own tiers is refused,
 * so a hand-tuned map is never replaced.
 */
async function recordLayout(
  dir: string,
  preset: LayoutPreset,
): Promise<"created" | "updated" | "unchanged"> {
  const path = join(dir, CONFIG_FILE);
  let config: Record<string, unknown> = {};
  let existed = true;
  try {
    config = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") existed = false;
    else if (error instanceof SyntaxError) {
      throw new EngramError(
        "CONFIG_INVALID",
        `${CONFIG_FILE} is not valid JSON: ${error.message}`,
        {
          hint: `fix ${path} first; init never overwrites it`,
        },
      );
    } else throw error;
  }
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new EngramError("CONFIG_INVALID", `${CONFIG_FILE} must hold a JSON object`, {
      hint: `fix ${path} first; init never overwrites it`,
    });
  }
  if (config.layout === preset.name) return "unchanged";
  if (config.layout !== undefined || config.tiers !== undefined) {
    throw new EngramError(
      "CONFIG_INVALID",
      `${CONFIG_FILE} already sets ${config.layout !== undefined ? `layout "${String(config.layout)}"` : "its own tiers"}`,
      {
        hint: `edit "layout" and "tiers" in ${path} by hand, or remove them and run init --layout ${preset.name} again`,
      },
    );
  }
  const next = {
    ...(existed ? {} : { $schema: configSchemaUrl() }),
    ...config,
    layout: preset.name,
    tiers: preset.tiers,
  };
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
  return existed ? "updated" : "created";
}
