import { execFile, spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pnpm, ROOT } from "./packages.js";

const run = promisify(execFile);
const tarballs = inject("tarballs");

/** True when the better-sqlite3 the installed store driver uses loads in this Node. */
function loadsNativeSqlite(dir: string): boolean {
  // From the driver's real folder: pnpm links only the direct dependencies at the top.
  const driver = join(realpathSync(join(dir, "node_modules", "@engram", "store-sqlite")), "x.js");
  const script = `require("node:module").createRequire(${JSON.stringify(driver)})("better-sqlite3")(":memory:").close()`;
  return spawnSync(process.execPath, ["-e", script], { stdio: "ignore" }).status === 0;
}

/**
 * Build settings that make node-gyp compile native addons for the Node running these tests: that
 * Node named outright (`npm run` hands scripts its own Node in NODE and npm_node_execpath) and its
 * own headers (`<prefix>/include/node`, which official and Debian installs have) in
 * `npm_config_nodedir`. A `nodedir` in the machine's `.npmrc` (this machine's names Debian's
 * Node 20 headers) would otherwise win under another Node, and pnpm would then keep a Node 20
 * build in its side-effects cache under that Node's key.
 */
function buildForThisNode(): NodeJS.ProcessEnv {
  const node = process.execPath;
  const prefix = dirname(dirname(node));
  const headers = existsSync(join(prefix, "include", "node", "node_version.h"));
  return {
    PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ""}`,
    NODE: node,
    npm_node_execpath: node,
    ...(headers ? { npm_config_nodedir: prefix } : {}),
  };
}

/**
 * The packed CLI installed into an empty folder, as a user installs it: only the tarballs of this
 * repository (standing in for the registry, which has no engram yet) and the registry for the
 * rest. pnpm rather than npm so better-sqlite3 comes from the store's build instead of compiling
 * again (~1.5 min); `npm run test:scale` installs with npm too.
 */
describe("the packed CLI in an empty folder", () => {
  let dir: string;
  let installLog: string;
  const engram = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [join(dir, "node_modules", "@engram", "cli", "dist", "bin.js"), ...args],
        { cwd: dir, env: { ...process.env, NO_COLOR: "1" } },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-consumer-"));
    // Every @engram package resolves to its tarball; pnpm 10 builds only what is allowed to build.
    const overrides = Object.fromEntries(
      Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`]),
    );
    await writeFile(
      join(dir, "package.json"),
      `${JSON.stringify(
        {
          name: "engram-consumer",
          private: true,
          pnpm: { overrides, onlyBuiltDependencies: ["better-sqlite3"] },
        },
        null,
        2,
      )}\n`,
    );
    const wanted = ["@engram/cli", "@engram/core", "@engram/store-sqlite"];
    installLog = pnpm(
      [
        "add",
        ...wanted.map((name) => `file:${tarballs[name]}`),
        "--prefer-offline",
        "--reporter",
        "append-only",
      ],
      dir,
      { ...process.env, ...buildForThisNode(), npm_config_engine_strict: "false" },
    );
    // pnpm's side-effects cache keeps one build per Node major version, and a store may hold
    // under this Node's key a build made for another (compiled against the headers a `.npmrc`'s
    // `nodedir` named, before `buildForThisNode`): the install then links it. Rebuild it for this
    // Node, from source, as a user of pnpm would have to.
    if (!loadsNativeSqlite(dir)) {
      pnpm(["rebuild", "better-sqlite3"], dir, {
        ...process.env,
        ...buildForThisNode(),
        npm_config_build_from_source: "true",
      });
      if (!loadsNativeSqlite(dir)) {
        throw new Error(`better-sqlite3 in ${dir} does not load in Node ${process.version}`);
      }
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("installs without engine warnings on this Node", () => {
    expect(installLog).not.toMatch(/Unsupported engine|EBADENGINE/i);
  });

  it("pulls no provider the user did not choose: no cloud SDKs, no English NLP model", async () => {
    const installed = await readdir(join(dir, "node_modules", ".pnpm"));
    for (const unwanted of ["openai@", "@google+genai@", "wink-eng-lite-web-model@"]) {
      expect(installed.filter((entry) => entry.startsWith(unwanted))).toEqual([]);
    }
    expect(existsSync(join(dir, "node_modules", "@engram", "embed-openai"))).toBe(false);
  });

  it("runs engram --version, init, add and search (English and Chinese)", async () => {
    const version = await engram("--version");
    expect(version.stdout.trim()).toBe(
      (
        await import(join(dir, "node_modules", "@engram", "cli", "package.json"), {
          with: { type: "json" },
        })
      ).default.version,
    );
    const ws = join(dir, "memory-ws");
    expect((await engram("init", "-w", ws)).code).toBe(0);
    expect(
      (await engram("add", "Lin prefers advisory locks over Redis locks", "-w", ws)).code,
    ).toBe(0);
    expect(
      (await engram("add", "用户偏好：回答先给结论，再给理由", "--long-term", "-w", ws)).code,
    ).toBe(0);
    const english = await engram("search", "advisory locks", "--json", "-w", ws);
    expect(english.code).toBe(0);
    const hits = JSON.parse(english.stdout) as { results: { snippet: string }[] };
    expect(hits.results[0]?.snippet).toContain("advisory locks");
    const chinese = JSON.parse((await engram("search", "用户偏好", "--json", "-w", ws)).stdout) as {
      results: { path: string }[];
    };
    expect(chinese.results[0]?.path).toBe("MEMORY.md");
  });

  it("runs the root README's library example as written", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## As a library"));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    await writeFile(join(dir, "readme-example.mjs"), code as string);
    const { stdout } = await run(process.execPath, ["readme-example.mjs"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(stdout).toContain("rollback plan in ops/rollback.md");
  });

  it("names the package to install for a driver that is not there, in one line", async () => {
    const ws = join(dir, "memory-ws");
    const result = await engram("search", "locks", "--store", "memory", "-w", ws);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("@engram/store-memory");
  });
});
