import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, engram, removeDir, tempDir } from "./helpers.js";

/** The `engram` binary as a user runs it: a real child process on a real workspace. */
describe("engram CLI", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
  });
  afterEach(() => removeDir(ws));

  it("init → add → search → get → status, human and JSON", async () => {
    const init = await engram(["init", "--workspace", ws]);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("created memory/, .engram/, MEMORY.md");
    expect((await engram(["init", "--workspace", ws])).stdout).toContain("already a workspace");

    const add = await engram([
      "add",
      "--workspace",
      ws,
      "--date",
      "2026-05-06",
      "Rotated",
      "the",
      "staging",
      "credentials",
    ]);
    expect(add).toMatchObject({ code: 0, stderr: "" });
    expect(add.stdout).toMatch(/^Added to memory\/2026-05-06\.md \(lines 3-5\)$/m);
    const longTerm = await engram(["add", "--long-term", "--json", "--workspace", ws, "-"], {
      input: "用户偏好：深色主题\n",
    });
    expect(JSON.parse(longTerm.stdout)).toMatchObject({ path: "MEMORY.md", indexed: true });

    const search = await engram(["search", "staging credentials", "--workspace", ws]);
    expect(search.code).toBe(0);
    expect(search.stdout).toContain("(keyword search only: no embedding provider is configured)");
    // A chunk that fits in a snippet is shown whole, so the result cites the whole small file.
    // The short tier's default weight (search.tierWeights.short) is 0.94.
    expect(search.stdout).toMatch(/1\. memory\/2026-05-06\.md:1-5 {2}score 0\.940 {2}\[short\]/);

    const json = JSON.parse(
      (await engram(["search", "用户偏好", "--json", "-k", "1", "--workspace", ws])).stdout,
    );
    expect(json).toMatchObject({ query: "用户偏好", mode: "keyword", degraded: true });
    expect(json.results).toHaveLength(1);
    expect(json.results[0]).toMatchObject({ path: "MEMORY.md", tier: "long", degraded: true });
    expect(json.results[0].snippet).toContain("深色主题");

    const get = await engram([
      "get",
      "memory/2026-05-06.md",
      "--from",
      "3",
      "--lines",
      "3",
      "--workspace",
      ws,
    ]);
    expect(get.stdout).toMatch(/^## \d\d:\d\d\n\nRotated the staging credentials\n$/);

    const status = JSON.parse((await engram(["status", "--json", "--workspace", ws])).stdout);
    expect(status).toMatchObject({
      store: { kind: "sqlite", files: 2 },
      embedding: null,
      pending: { changed: 0, removed: 0 },
      degraded: true,
    });
    expect(status.lastSync.finishedAt).toEqual(expect.any(String));
    const human = await engram(["status", "--workspace", ws]);
    expect(human.stdout).toContain("Pending     none");
  });

  it("search picks up hand edits first; --no-sync does not", async () => {
    await engram(["init", "--workspace", ws]);
    await writeFile(join(ws, "memory", "hand.md"), "edited by hand: narwhal\n");
    expect(
      (await engram(["search", "narwhal", "--no-sync", "--json", "--workspace", ws])).stdout,
    ).toContain('"results": []');
    // Nothing was synced yet: MEMORY.md from init and the hand-written file are both pending.
    expect((await engram(["status", "--workspace", ws])).stdout).toContain("Pending     2 changed");
    const found = JSON.parse(
      (await engram(["search", "narwhal", "--json", "--workspace", ws])).stdout,
    );
    expect(found.results[0].path).toBe("memory/hand.md");
  });

  it("sync reports what it did; --force rebuilds", async () => {
    await engram(["init", "--workspace", ws]);
    const first = await engram(["sync", "--workspace", ws]);
    expect(first.stdout).toMatch(/Synced 1 file: 1 added; 1 chunk written/);
    const forced = JSON.parse(
      (await engram(["sync", "--force", "--json", "--workspace", ws])).stdout,
    );
    expect(forced).toMatchObject({ rebuilt: true, rebuildReasons: ["forced"], added: 1 });
  });

  it("errors are one line naming the fix, with exit code 2 for bad usage", async () => {
    const missing = await engram(["search", "x", "--workspace", join(ws, "nope")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toMatch(
      /^engram: workspace .* does not exist \(create it with "engram init/,
    );

    const notWs = await engram(["status", "--workspace", ws]);
    expect(notWs).toMatchObject({ code: 2 });
    expect(notWs.stderr).toContain("is not an engram workspace");

    await engram(["init", "--workspace", ws]);
    const badK = await engram(["search", "x", "-k", "zero", "--workspace", ws]);
    expect(badK.code).toBe(2);
    expect(badK.stderr).toContain("--max-results must be a positive whole number");

    const escaped = await engram(["get", "../../etc/passwd", "--workspace", ws]);
    expect(escaped.code).toBe(2);
    expect(escaped.stderr).toContain("outside");

    await writeFile(join(ws, "engram.config.json"), "{ nope");
    const badConfig = await engram(["search", "x", "--json", "--workspace", ws]);
    expect(badConfig.code).toBe(2);
    expect(JSON.parse(badConfig.stderr)).toMatchObject({ error: { code: "CONFIG_INVALID" } });

    expect((await engram(["frobnicate"])).code).toBe(2);
  });

  it("the workspace comes from ENGRAM_WORKSPACE, then the current folder", async () => {
    await engram(["init", "--workspace", ws]);
    await engram(["add", "platypus sighting"], { env: { ENGRAM_WORKSPACE: ws } });
    const fromCwd = JSON.parse(
      (await engram(["search", "platypus", "--json"], { cwd: ws })).stdout,
    );
    expect(fromCwd.results).toHaveLength(1);
    expect(await readFile(join(ws, ".engram", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("stops quietly when its output pipe closes early (engram … | head)", async () => {
    await engram(["init", "--workspace", ws]);
    const lines = Array.from(
      { length: 4000 },
      (_, i) => `- entry ${i} about the heron migration`,
    ).join("\n");
    await writeFile(join(ws, "memory", "long.md"), `${lines}\n`);
    const child = spawn(
      process.execPath,
      [BIN, "search", "heron", "-k", "100", "--workspace", ws],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
  });

  it("demo builds, indexes and searches an example workspace", async () => {
    const demo = await engram(["demo", "--dir", join(ws, "demo")]);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain("wrote 4 files");
    expect(demo.stdout).toMatch(/\$ engram search "用户偏好"[^\n]*\n {2}MEMORY\.md:/);
    expect(demo.stdout).toMatch(/\d+ │ 部署计划：周四发布 v2\.3，回滚方案写在 ops\/rollback\.md/);
  });
});
