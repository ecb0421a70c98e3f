// The three-tier seed's relevance formula in search, over a real SQLite index and recall log.
import { createMemory, fixedClock, type Memory } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

let memory: Memory | undefined;
let dir: string;
afterEach(async () => {
  await memory?.close();
  await removeDir(dir);
});

describe("relevance in search", () => {
  it("blends recency, recall frequency and importance into the ranking when asked", async () => {
    dir = await tempDir("engram-relevance-");
    await writeFiles(dir, {
      "memory/2026-01-10.md":
        "# 2026-01-10\n\n## 10:00\n\nThe deploy checklist lives in the wiki\n",
      "memory/2026-03-01.md":
        "# 2026-03-01\n\n## 10:00\n\nThe deploy checklist lives in the wiki #important\n",
    });
    memory = await createMemory({
      workspace: dir,
      store: sqliteStore(),
      readConfigFile: false,
      clock: fixedClock("2026-03-02T10:00:00"),
    });
    await memory.sync();
    const paths = async (opts = {}) =>
      (
        await (memory as Memory).search("deploy checklist", { mode: "keyword", ...opts })
      ).results.map((r) => r.path);
    const plain = await paths();
    expect(plain).toHaveLength(2);
    // The recent, important note wins with relevance blended in.
    expect((await paths({ relevance: 0.5 }))[0]).toBe("memory/2026-03-01.md");
    // Recall frequency: the old note, read again and again, catches up.
    for (let i = 0; i < 8; i++) await memory.get("memory/2026-01-10.md", { from: 5, lines: 1 });
    await memory.recall.flush();
    expect((await paths({ relevance: 0.5 }))[0]).toBe("memory/2026-01-10.md");
    // Off by default.
    expect(await paths()).toEqual(plain);
  });
});
