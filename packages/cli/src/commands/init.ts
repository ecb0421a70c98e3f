import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { INDEX_DIR, MEMORY_DIR, MEMORY_FILE } from "@engram/core";
import type { Command } from "commander";
import { globals } from "../context.js";
import { type Io, json, line } from "../output.js";
import { workspaceDir } from "../workspace.js";

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
    .action(async (_opts: unknown, cmd: Command) => {
      const options = globals(cmd);
      const dir = workspaceDir(options.workspace);
      const created: string[] = [];
      await mkdir(dir, { recursive: true });
      for (const folder of [MEMORY_DIR, INDEX_DIR]) {
        if ((await mkdir(join(dir, folder), { recursive: true })) !== undefined)
          created.push(`${folder}/`);
      }
      try {
        await writeFile(join(dir, MEMORY_FILE), MEMORY_TEMPLATE, { flag: "wx" });
        created.push(MEMORY_FILE);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      if (options.json) return json(io, { workspace: dir, created });
      line(
        io,
        created.length
          ? `Initialised ${dir}: created ${created.join(", ")}`
          : `${dir} is already a workspace; nothing changed`,
      );
      line(io, `Next: engram add "something to remember" && engram search "remember"`);
    });
}
