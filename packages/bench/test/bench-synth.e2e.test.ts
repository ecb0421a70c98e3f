import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bench, removeDir, tempDir } from "./helpers.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

describe("engram-bench synth", () => {
  it("writes the perf workspace and indexes it, so engram commands find an index", async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const ws = join(dir, "ws");
    const run = await bench(["synth", "--chunks", "200", "--dir", ws, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as {
      files: number;
      chunks: number;
      synced: { chunks: number };
    };
    expect(out.chunks).toBeGreaterThanOrEqual(200);
    // The index holds what the summary counted: a sync with the default config finds the same.
    expect(out.synced.chunks).toBe(out.chunks);
    expect(await readdir(join(ws, ".engram"))).toContain("index.sqlite");
  }, 60_000);

  it("refuses a folder that holds anything, naming the fix", async () => {
    const dir = await tempDir();
    dirs.push(dir);
    await writeFile(join(dir, "notes.md"), "mine\n");
    const run = await bench(["synth", "--chunks", "10", "--dir", dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/is not empty \(name a new folder/);
  });
});
