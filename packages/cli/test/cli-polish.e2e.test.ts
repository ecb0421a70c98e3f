import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir } from "./helpers.js";

/** An SGR escape sequence (ESC [ n m). */
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[\\d+m`);
const stripAnsi = (text: string) => text.replaceAll(new RegExp(`${ESC}\\[\\d+m`, "g"), "");
const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};
const corePkg = JSON.parse(
  await readFile(new URL("../../core/package.json", import.meta.url), "utf8"),
) as { version: string };

describe("the CLI a person expects (built CLI)", () => {
  let dir: string;
  let ws: string;
  beforeAll(async () => {
    dir = await tempDir("engram-polish-");
    ws = join(dir, "ws");
    expect((await engram(["init", "-w", ws])).code).toBe(0);
    expect((await engram(["add", "长期记忆存储用户偏好 and the deploy plan", "-w", ws])).code).toBe(
      0,
    );
  });
  afterAll(() => removeDir(dir));

  it("--version prints the package's version", async () => {
    const run = await engram(["--version"]);
    expect(run.stdout.trim()).toBe(pkg.version);
    expect(pkg.version).not.toBe("0.0.0");
  });

  it("usage errors are one line (exit 2), or JSON on stderr with --json", async () => {
    const unknown = await engram(["search", "x", "--max-reslts", "3", "-w", ws]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")).toEqual([
      "engram: unknown option '--max-reslts' (did you mean --max-results? see engram search --help)",
    ]);
    const json = await engram(["serch", "x", "--json"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: {
        code: "INVALID_ARGUMENT",
        message: "unknown command 'serch'",
        hint: "did you mean search? see engram --help",
      },
    });
    const missing = await engram(["get", "--json"]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr).error.message).toBe("missing required argument 'path'");
  });

  it("an empty query is a usage error", async () => {
    for (const query of ["", "   "]) {
      const run = await engram(["search", query, "-w", ws]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("the search query is empty");
    }
  });

  it("get --from past the end says how many lines the file has", async () => {
    const run = await engram(["get", "MEMORY.md", "--from", "500", "-w", ws]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--from 500 is past the end of MEMORY\.md, which has \d+ lines/);
    expect((await engram(["get", "MEMORY.md", "--from", "1", "-w", ws])).code).toBe(0);
  });

  it("a --workspace that is a file says so, for search and for init alike", async () => {
    const file = join(dir, "notes.txt");
    await writeFile(file, "not a folder\n");
    for (const args of [["search", "x"], ["init"], ["config", "set", "search.maxResults", "3"]]) {
      const run = await engram([...args, "-w", file]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`workspace ${file} is a file, not a folder`);
      expect(run.stderr).not.toContain("EEXIST");
    }
  });

  it("colours a terminal's output only: FORCE_COLOR forces it, NO_COLOR and pipes go without", async () => {
    const args = ["search", "deploy plan", "-w", ws];
    expect((await engram(args)).stdout).not.toMatch(ANSI);
    const forced = await engram(args, { env: { FORCE_COLOR: "1" } });
    expect(forced.stdout).toMatch(ANSI);
    expect(stripAnsi(forced.stdout)).toBe((await engram(args)).stdout);
    expect((await engram(args, { env: { FORCE_COLOR: "0" } })).stdout).not.toMatch(ANSI);
    expect((await engram(args, { env: { NO_COLOR: "1" } })).stdout).not.toMatch(ANSI);
    // --json stays plain whatever the environment says.
    const json = await engram([...args, "--json"], { env: { FORCE_COLOR: "1" } });
    expect(json.stdout).not.toMatch(ANSI);
    expect((await engram(["serch"], { env: { FORCE_COLOR: "1" } })).stderr).toMatch(ANSI);
  });

  it("prints completion scripts for bash, zsh and fish that ask engram for candidates", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const run = await engram(["completion", shell]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("engram complete --");
    }
    const commands = await engram(["complete", "--", "se"]);
    expect(commands.stdout.split("\n").map((l) => l.split("\t")[0])).toContain("search");
    const options = await engram(["complete", "--", "search", "--max"]);
    expect(options.stdout).toContain("--max-results");
    expect((await engram(["completion", "tcsh"])).code).toBe(2);
  });

  it("init writes $schema; config lists every setting with its source, and set / unset / get / path / schema work", async () => {
    const config = JSON.parse(await readFile(join(ws, "engram.config.json"), "utf8"));
    expect(config).toEqual({
      $schema: `https://unpkg.com/@engram/core@${corePkg.version}/engram.config.schema.json`,
    });

    const env = { ENGRAM_STORE: "memory", OPENAI_API_KEY: "sk-secret-value" };
    const list = JSON.parse((await engram(["config", "--json", "-w", ws], { env })).stdout) as {
      entries: { key: string; value: unknown; source: string }[];
    };
    const entry = (key: string) => list.entries.find((e) => e.key === key);
    expect(entry("search.maxResults")).toEqual({
      key: "search.maxResults",
      value: 6,
      source: "default",
    });
    expect(entry("store.driver")).toEqual({
      key: "store.driver",
      value: "memory",
      source: "env ENGRAM_STORE",
    });
    expect(entry("embedding.providers.openai.apiKey")).toEqual({
      key: "embedding.providers.openai.apiKey",
      value: "***",
      source: "env OPENAI_API_KEY",
    });
    expect(JSON.stringify(list)).not.toContain("sk-secret-value");

    expect((await engram(["config", "set", "search.maxResults", "8", "-w", ws])).code).toBe(0);
    expect((await engram(["config", "set", "extraPaths", '["../团队笔记"]', "-w", ws])).code).toBe(
      0,
    );
    const get = JSON.parse(
      (await engram(["config", "get", "search.maxResults", "--json", "-w", ws])).stdout,
    );
    expect(get).toMatchObject({
      key: "search.maxResults",
      value: 8,
      sources: [{ source: "engram.config.json" }],
    });
    const before = await readFile(join(ws, "engram.config.json"), "utf8");
    const bad = await engram(["config", "set", "search.maxResults", "lots", "-w", ws]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("not written");
    expect(await readFile(join(ws, "engram.config.json"), "utf8")).toBe(before);
    expect((await engram(["config", "set", "serach.maxResults", "3", "-w", ws])).code).toBe(2);
    expect((await engram(["config", "unset", "search.maxResults", "-w", ws])).code).toBe(0);
    expect(JSON.parse(await readFile(join(ws, "engram.config.json"), "utf8"))).toEqual({
      $schema: config.$schema,
      extraPaths: ["../团队笔记"],
    });
    expect((await engram(["config", "get", "nope", "-w", ws])).code).toBe(2);

    const path = JSON.parse((await engram(["config", "path", "--json", "-w", ws])).stdout);
    expect(path).toEqual({ path: join(ws, "engram.config.json"), exists: true });
    const schema = JSON.parse((await engram(["config", "schema"])).stdout);
    expect(schema.properties.search.properties.maxResults).toMatchObject({
      type: "integer",
      default: 6,
    });
  });
});
