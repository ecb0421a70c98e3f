import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir } from "./helpers.js";

const HOOK = pathToFileURL(join(import.meta.dirname, "fixtures", "module-log.mjs")).href;

/** Modules only `engram mcp` and `engram ui` need: loading them costs every other command. */
const HEAVY = [
  /@modelcontextprotocol/,
  /\/dist\/mcp\//,
  /\/node_modules\/zod\//,
  /\/hono\//,
  /\/packages\/ui\/dist\//,
];

describe("start-up loads only what the command needs (built CLI)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("engram-modules-");
  });
  afterAll(() => removeDir(dir));

  /** Run the CLI and return the URLs of the modules it resolved. */
  async function modulesOf(name: string, args: string[]): Promise<string[]> {
    const log = join(dir, `${name}.log`);
    const run = await engram(args, {
      cwd: dir,
      env: { NODE_OPTIONS: `--import ${HOOK}`, ENGRAM_MODULE_LOG: log },
    });
    expect(run.stderr).not.toContain("module-log");
    return (await readFile(log, "utf8")).split("\n").filter(Boolean);
  }
  const heavy = (urls: string[]) => urls.filter((url) => HEAVY.some((re) => re.test(url)));

  it("--version, --help and search leave the MCP SDK unloaded", async () => {
    expect(heavy(await modulesOf("version", ["--version"]))).toEqual([]);
    expect(heavy(await modulesOf("help", ["mcp", "--help"]))).toEqual([]);
    const ws = join(dir, "ws");
    expect((await engram(["-w", ws, "init"])).code).toBe(0);
    const search = await modulesOf("search", ["-w", ws, "search", "anything"]);
    expect(search.some((url) => url.includes("store-sqlite"))).toBe(true);
    expect(heavy(search)).toEqual([]);
  });
});
