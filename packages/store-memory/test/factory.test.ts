import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createMemory, type Memory } from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { inMemoryStore } from "../src/index.js";
import { useTempStores } from "./helpers.js";

const temp = useTempStores();
const opened: Memory[] = [];
afterEach(async () => {
  for (const memory of opened.splice(0)) await memory.close();
});

/** A workspace with English and Chinese memory. */
async function workspace(): Promise<string> {
  const root = await temp.dir();
  await mkdir(join(root, "memory"));
  await writeFile(
    join(root, "MEMORY.md"),
    "# Preferences\n\n用户偏好：深色模式。\n\n# Ops\n\nDeploys run on GitHub Actions.\n",
  );
  await writeFile(
    join(root, "memory", "2026-01-02.md"),
    "# 2026-01-02\n\nThe deploy pipeline failed twice; rollback plan in ops/rollback.md.\n",
  );
  return root;
}

async function open(root: string, store = inMemoryStore()): Promise<Memory> {
  const memory = await createMemory({
    workspace: root,
    store,
    embedder: createHashingEmbedder({ dims: 32 }),
  });
  opened.push(memory);
  return memory;
}

describe("inMemoryStore with createMemory", () => {
  it("indexes a workspace and answers keyword, vector and hybrid searches, Chinese included", async () => {
    const root = await workspace();
    const memory = await open(root);
    await memory.sync();
    const status = await memory.status();
    expect(status.store).toMatchObject({ kind: "memory", files: 2 });
    expect(status.store.vectors).toBeGreaterThan(0);

    const chinese = await memory.search("深色模式", { mode: "keyword" });
    expect(chinese.results[0]?.path).toBe("MEMORY.md");
    const pipeline = await memory.search("deploy pipeline failed", { mode: "hybrid" });
    expect(pipeline.degraded).toBe(false);
    expect(pipeline.results[0]?.path).toBe("memory/2026-01-02.md");
    const vector = await memory.search("rollback plan", { mode: "vector" });
    expect(vector.results.map((result) => result.path)).toContain("memory/2026-01-02.md");

    await memory.appendDaily("Zebra crossing repainted near the office.", { date: "2026-01-03" });
    const fresh = await memory.search("zebra", { mode: "keyword" });
    expect(fresh.results[0]?.path).toBe("memory/2026-01-03.md");
    // Nothing but core's own files in the index folder: this store never touches the disk.
    expect(
      (await readdir(join(root, ".engram"))).filter((name) => /memory|snapshot/.test(name)),
    ).toEqual([]);
  });

  it("with snapshotPath (relative to the workspace) picks up where it left off", async () => {
    const root = await workspace();
    const factory = inMemoryStore({ snapshotPath: ".engram/memory-snapshot.jsonl" });
    const first = await open(root, factory);
    await first.sync();
    const before = (await first.status()).store;
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    expect(await readdir(join(root, ".engram"))).toContain("memory-snapshot.jsonl");

    const second = await open(root, factory);
    expect((await second.status()).store).toMatchObject({
      files: before.files,
      chunks: before.chunks,
      vectors: before.vectors,
    });
    const report = await second.sync();
    expect(report).toMatchObject({ rebuilt: false, added: 0, updated: 0, unchanged: 2, chunks: 0 });
    const again = await second.search("深色模式", { mode: "keyword" });
    expect(again.results[0]?.path).toBe("MEMORY.md");
  });
});
