import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStatus, SearchResponse } from "@engram/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/** The same workspace on every store the CLI knows, in child processes. */
describe("engram --store and engram reindex", () => {
  let ws: string;
  const run = async <T>(...args: string[]): Promise<T> => {
    const { code, stdout, stderr } = await engram([...args, "--json", "--workspace", ws]);
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout) as T;
  };
  const top = async (query: string, ...flags: string[]) =>
    (await run<SearchResponse>("search", query, ...flags)).results.map(
      (r) => `${r.path}:${r.startLine}`,
    );

  beforeEach(async () => {
    ws = await tempDir();
    await writeFiles(ws, {
      "MEMORY.md": "# Memory\n\n长期记忆存储用户偏好\n\nThe deploy window is Tuesday.\n",
      "memory/2026-10-01.md":
        "# 2026-10-01\n\n## 10:00\nfixed the billing bug in the invoice service\n",
      "memory/2026-10-02.md":
        "# 2026-10-02\n\n## 09:00\nLin prefers advisory locks over Redis locks\n",
    });
  });
  afterEach(async () => removeDir(ws));

  // Fourteen CLI processes, LanceDB's among them: ~15–25 s on a quiet 2-core machine.
  it("answers the same on sqlite, memory and lancedb", async () => {
    const queries = ["用户偏好", "billing bugs", "advisory locks", "deploy window"];
    const expected = [];
    for (const q of queries) expected.push(await top(q));
    expect(expected.every((r) => r.length > 0)).toBe(true);
    for (const store of ["memory", "lancedb"]) {
      for (const [i, q] of queries.entries()) {
        expect(await top(q, "--store", store), `${store}: ${q}`).toEqual(expected[i]);
      }
      const status = await run<MemoryStatus>("status", "--store", store);
      expect(status.store).toMatchObject({ kind: store, files: 3 });
    }
  }, 90_000);

  it("the memory store keeps its index between processes in a snapshot", async () => {
    await run("sync", "--store", "memory");
    const status = await run<MemoryStatus>("status", "--store", "memory");
    expect(status.store).toMatchObject({ kind: "memory", files: 3, chunks: 3 });
    expect(status.pending.changed).toBe(0);
  });

  it("reindex --to lancedb --switch builds it from the files and makes it the store", async () => {
    await run("sync");
    const onSqlite = await top("advisory locks");
    const result = await run<{ store: string; switched: boolean; report: { files: number } }>(
      "reindex",
      "--to",
      "lancedb",
      "--switch",
    );
    expect(result).toMatchObject({ store: "lancedb", switched: true, report: { files: 3 } });
    const config = JSON.parse(await readFile(join(ws, "engram.config.json"), "utf8"));
    expect(config.store.driver).toBe("lancedb");
    const status = await run<MemoryStatus>("status");
    expect(status.store).toMatchObject({ kind: "lancedb", files: 3 });
    expect(onSqlite[0]).toMatch(/^memory\/2026-10-02\.md:/);
    expect(await top("advisory locks")).toEqual(onSqlite);
  }, 90_000);

  it("an unknown store is a usage error naming the choices", async () => {
    const { code, stderr } = await engram(["status", "--store", "mongo", "--workspace", ws]);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown store driver "mongo"');
    expect(stderr).toContain("sqlite, memory, lancedb");
  });
});
