import { spawn } from "node:child_process";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createMemory, type Memory } from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const WORKER = fileURLToPath(new URL("./fixtures/sync-worker.mjs", import.meta.url));
const QUERIES = ["river delta sediment", "长期 记忆", "note 17", "migration plan", "沉积物"];

/** Everything an index answers, minus timestamps and bytes on disk: equal dumps mean equal indexes. */
async function dump(memory: Memory) {
  const files = (await memory.store.listFiles())
    .map(({ path, hash, size, tier }) => ({ path, hash, size, tier }))
    .sort((a, b) => a.path.localeCompare(b.path));
  const chunks = [];
  for (const f of files) chunks.push(...(await memory.store.getChunks(f.path)));
  const searches = [];
  for (const q of QUERIES) {
    searches.push(await memory.search(q, { maxResults: 20, mode: "keyword" }));
    searches.push(await memory.search(q, { maxResults: 20, mode: "vector", minScore: 0 }));
  }
  const { files: fileCount, chunks: chunkCount, vectors } = await memory.store.stats();
  return { files, chunks, stats: { fileCount, chunkCount, vectors }, searches };
}

describe("a sync killed midway (kill -9)", () => {
  let root: string;
  beforeEach(async () => {
    root = await tempDir();
  });
  afterEach(() => removeDir(root));

  it("leaves a consistent index, and the next sync makes it equal to a fresh one", async () => {
    const ws = join(root, "ws");
    const files: Record<string, string> = {};
    for (let i = 0; i < 600; i++) {
      const zh = i % 3 === 0 ? `\n长期记忆第${i}条：河流三角洲的沉积物。\n` : "";
      files[`memory/notes/${String(i).padStart(4, "0")}.md`] =
        `# Note ${i}\n\nnote ${i} about the river delta sediment and the migration plan.${zh}\n${"filler text ".repeat(200)}\n`;
    }
    await writeFiles(ws, files);

    const child = spawn(process.execPath, [WORKER, ws], { stdio: ["ignore", "pipe", "inherit"] });
    let killedAt = -1;
    await new Promise<void>((resolve) => {
      let buffer = "";
      child.stdout.on("data", (data: Buffer) => {
        buffer += data.toString();
        const done = [...buffer.matchAll(/progress (\d+) (\d+)/g)].at(-1);
        if (killedAt < 0 && done && Number(done[1]) >= 0.4 * Number(done[2])) {
          killedAt = Number(done[1]);
          child.kill("SIGKILL");
        }
      });
      child.on("close", () => resolve());
    });
    expect(killedAt).toBeGreaterThan(0);

    // Right after the kill: every indexed file has all its chunks (whole files per transaction).
    const fresh = join(root, "fresh");
    await cp(ws, fresh, { recursive: true });
    await removeDir(join(fresh, ".engram"));
    const embedder = () => createHashingEmbedder({ dims: 16 });
    const resumed = await createMemory({
      workspace: ws,
      store: sqliteStore(),
      embedder: embedder(),
    });
    const partial = await resumed.store.listFiles();
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(600);
    for (const f of partial.slice(0, 50))
      expect((await resumed.store.getChunks(f.path)).length).toBeGreaterThan(0);

    const report = await resumed.sync({ lockTimeoutMs: 20_000 });
    expect(report?.rebuilt).toBe(false);
    expect((report?.added ?? 0) + partial.length).toBe(600);

    const reference = await createMemory({
      workspace: fresh,
      store: sqliteStore(),
      embedder: embedder(),
    });
    await reference.sync();
    try {
      const [a, b] = [await dump(resumed), await dump(reference)];
      expect(a.files).toEqual(b.files);
      expect(a.chunks).toEqual(b.chunks);
      expect(a.stats).toEqual(b.stats);
      for (let i = 0; i < a.searches.length; i++) {
        expect(a.searches[i]).toEqual(b.searches[i]);
      }
    } finally {
      await resumed.close();
      await reference.close();
    }
  });
});
