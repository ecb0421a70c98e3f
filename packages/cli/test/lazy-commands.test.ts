import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir } from "./helpers.js";

const HOOK = pathToFileURL(join(import.meta.dirname, "fixtures", "module-log.mjs")).href;

/**
 * Modules only `engram mcp` and `engram ui` need: loading them costs every other command. The
 * build bundles each lazily imported module into a chunk named after it (`server-<hash>.js`).
 */
const HEAVY = [
  /@modelcontextprotocol/,
  /\/node_modules\/zod\//,
  /\/dist\/mcp\//,
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

  it("one-shot commands load no YAML parser, progress bar or JSON Schema validator", async () => {
    const ws = join(dir, "ws-light");
    expect((await engram(["-w", ws, "init"])).code).toBe(0);
    // @cfworker/json-schema checks model answers (nine modules): only a model call loads it.
    const lazy = [
      /\/node_modules\/yaml\//,
      /\/node_modules\/cli-progress\//,
      /\/node_modules\/@cfworker\/json-schema\//,
    ];
    for (const [name, args] of [
      ["version-light", ["--version"]],
      ["get", ["-w", ws, "get", "MEMORY.md"]],
    ] as const) {
      expect(
        (await modulesOf(name, [...args])).filter((url) => lazy.some((re) => re.test(url))),
      ).toEqual([]);
    }
    const search = await modulesOf("search-light", ["-w", ws, "search", "anything"]);
    expect(search.filter((url) => lazy.some((re) => re.test(url)))).toEqual([]);
    // Each @engram package is bundled into a few files (see scripts/build-package.mjs): a build
    // that ships one module per source file again costs every command ~0.15 s of CPU.
    const own = search.filter(
      (url) => /\/packages\/[^/]+\/dist\//.test(url) || /@engram\//.test(url),
    );
    expect(new Set(own).size).toBeLessThan(30);
  });

  it("a keyword-only search of an unchanged workspace loads no provider code and takes no lock", async () => {
    const ws = join(dir, "ws-unchanged");
    expect((await engram(["-w", ws, "init"])).code).toBe(0);
    expect((await engram(["-w", ws, "sync"])).code).toBe(0);
    const search = await modulesOf("search-unchanged", ["-w", ws, "search", "anything"]);
    // `auto` checks the three providers through their `/providers` entries; the embedder, reranker
    // and chat-model code (each a chunk named after its module) loads only in `create`.
    const providers = search.filter((url) => /\/packages\/embed-[^/]+\/dist\//.test(url));
    expect(providers.some((url) => url.endsWith("/providers.js"))).toBe(true);
    expect(
      providers.filter((url) => /\/(index|embedder-|chat-model-|reranker-)[^/]*\.js$/.test(url)),
    ).toEqual([]);
    // Nothing to sync: no sync lock, so proper-lockfile (and the graceful-fs it patches fs with)
    // stays unloaded.
    expect(search.filter((url) => /proper-lockfile|graceful-fs/.test(url))).toEqual([]);
  });
});
