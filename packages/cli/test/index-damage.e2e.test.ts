import { spawn } from "node:child_process";
import { once } from "node:events";
import { copyFile, open, readdir, rm, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStatus } from "@engram/core";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, engram, removeDir, tempDir, withoutProviderEnv, writeFiles } from "./helpers.js";

/** A workspace of 300 notes, synced; returns it and a copy of its good index. */
async function syncedWorkspace(
  dirs: string[],
): Promise<{ ws: string; index: string; good: string }> {
  const ws = await tempDir("engram-index-damage-");
  dirs.push(ws);
  const files: Record<string, string> = { "MEMORY.md": "# Memory\n\n部署窗口是周二 quetzal\n" };
  for (let i = 0; i < 300; i++) {
    const words = Array.from({ length: 80 }, (_, j) => `w${(i * 31 + j * 17) % 991}`).join(" ");
    files[`memory/long-term/note-${i}.md`] = `# Note ${i}\n\nfact${i} 第${i}条 ${words}\n`;
  }
  await writeFiles(ws, files);
  const sync = await engram(["sync", "-w", ws]);
  expect(sync.code, sync.stderr).toBe(0);
  const index = join(ws, ".engram", "index.sqlite");
  const good = join(ws, "good.sqlite.bak");
  await copyFile(index, good);
  return { ws, index, good };
}

async function statusOf(ws: string): Promise<MemoryStatus> {
  const { code, stdout, stderr } = await engram(["status", "--json", "-w", ws]);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as MemoryStatus;
}

async function overwrite(path: string, at: number, bytes: Buffer): Promise<void> {
  const handle = await open(path, "r+");
  await handle.write(bytes, 0, bytes.length, at);
  await handle.close();
}

const NOISE = /UNEXPECTED|\(node:\d+\)|damaged … delete|at .*\.js:\d+/;

/**
 * Issue 20, item 15: a half-truncated or garbage-header `index.sqlite` made `search`, `sync`,
 * `sync --force` and `status` exit 1 ("damaged … delete …"); 32 KiB of garbage in the middle went
 * unnoticed until a write failed; `.engram` as a regular file gave `UNEXPECTED: EEXIST`. The index
 * is a cache: it is moved aside and rebuilt, and that is said once.
 */
describe("a damaged index rebuilds itself (CLI)", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await removeDir(d);
  });

  it("a garbage header: search answers, says so once; later commands are quiet", async () => {
    const { ws, index } = await syncedWorkspace(dirs);
    await overwrite(index, 0, Buffer.from("garbage ".repeat(32)));
    const first = await engram(["search", "fact123", "--json", "-w", ws]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).results[0].path).toBe("memory/long-term/note-123.md");
    expect(first.stderr).toMatch(
      /engram: warning: the index was found damaged \(.*NOTADB.*\) and replaced/,
    );
    expect(first.stderr).not.toMatch(NOISE);
    const again = await engram(["search", "部署窗口", "--json", "-w", ws]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe("");
    const status = await statusOf(ws);
    expect(status.store).toMatchObject({ files: 301, chunks: expect.any(Number) });
    expect(status.index.recovered).toEqual([]);
    const copies = (await readdir(join(ws, ".engram"))).filter((n) => n.includes(".damaged-"));
    expect(copies).toHaveLength(1);
  });

  for (const command of [["sync"], ["sync", "--force"], ["status"]]) {
    it(`half-truncated: \`engram ${command.join(" ")}\` succeeds, and the index is whole after`, async () => {
      const { ws, index } = await syncedWorkspace(dirs);
      await truncate(index, Math.floor((await stat(index)).size / 2));
      const run = await engram([...command, "-w", ws]);
      expect(run.code, run.stderr).toBe(0);
      expect(`${run.stdout}${run.stderr}`).toMatch(/found damaged/);
      expect(run.stderr).not.toMatch(NOISE);
      const sync = await engram(["sync", "--json", "-w", ws]);
      expect(sync.code, sync.stderr).toBe(0);
      expect((await statusOf(ws)).store.files).toBe(301);
    });
  }

  it("32 KiB of garbage in the middle after a killed process: status finds it on open", async () => {
    const { ws, index } = await syncedWorkspace(dirs);
    // A watcher killed with SIGKILL never closes the index.
    const watch = spawn(process.execPath, [BIN, "watch", "--json", "-w", ws], {
      env: withoutProviderEnv(process.env),
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    watch.stdout.on("data", (d) => (out += d));
    while (!out.includes('"ready"')) await once(watch.stdout, "data");
    watch.kill("SIGKILL");
    await once(watch, "close");
    const size = (await stat(index)).size;
    await overwrite(index, Math.floor(size / 2 / 4096) * 4096, Buffer.alloc(32 * 1024, 0x5a));

    const status = await statusOf(ws);
    expect(status.index.recovered[0]).toMatch(/quick_check/);
    const sync = await engram(["sync", "-w", ws]);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toMatch(/found damaged \(quick_check/);
    expect((await statusOf(ws)).store.files).toBe(301);
  });

  it("32 KiB of garbage in the middle after a clean close: the first write that meets it", async () => {
    const { ws, index } = await syncedWorkspace(dirs);
    const size = (await stat(index)).size;
    await overwrite(index, 65_536, Buffer.alloc(size - 65_536, 0x5a));
    // Every note changes: the sync rewrites every file's rows and meets the damage.
    for (let i = 0; i < 300; i += 1) {
      await writeFile(join(ws, `memory/long-term/note-${i}.md`), `# Note ${i}\n\nfact${i} again\n`);
    }
    const sync = await engram(["sync", "-w", ws]);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toMatch(/found damaged/);
    expect((await statusOf(ws)).store.files).toBe(301);
  });

  it("`.engram` as a regular file: a clear error naming it and the fix, exit 1", async () => {
    const ws = await tempDir("engram-index-file-");
    dirs.push(ws);
    await writeFiles(ws, { "MEMORY.md": "# Memory\n", ".engram": "not a folder\n" });
    for (const command of [["search", "x"], ["status"], ["sync"]]) {
      const run = await engram([...command, "-w", ws]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/\.engram is a file, but engram keeps its index in a folder/);
      expect(run.stderr).toMatch(/move or delete that file/);
      expect(run.stderr).not.toMatch(NOISE);
    }
    await rm(join(ws, ".engram"));
    expect((await engram(["sync", "-w", ws])).code).toBe(0);
  });
});
