import { appendFile, rename, rm, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createMemory, type Memory, type MemoryOptions } from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/** End to end through the library: real files, real SQLite (FTS5 + sqlite-vec). */
describe("memory on SQLite", () => {
  let ws: string;
  const open: Memory[] = [];
  const memoryOf = async (options: Partial<MemoryOptions> = {}) => {
    const memory = await createMemory({ workspace: ws, store: sqliteStore(), ...options });
    open.push(memory);
    return memory;
  };
  beforeEach(async () => {
    ws = await tempDir();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
    await removeDir(ws);
  });

  it("a Chinese query finds Chinese notes, and mixed notes work", async () => {
    await writeFiles(ws, {
      "MEMORY.md": "# 长期记忆\n\n长期记忆存储用户偏好\n",
      "memory/2026-01-02.md":
        "# 2026-01-02\n\n## 10:00\n部署 v2.3 到 staging，回滚方案在 ops/rollback.md\n\n## 11:00\nLin 喜欢用 Python 写 fastapi 服务\n",
      "memory/2026-01-03.md": "# 2026-01-03\n\n## 09:00\nweather was nice, went for a walk\n",
    });
    const memory = await memoryOf();
    await memory.sync();

    const prefs = await memory.search("用户偏好");
    expect(prefs.results[0]).toMatchObject({ path: "MEMORY.md", tier: "long", degraded: true });
    expect(prefs.results[0]?.snippet).toContain("长期记忆存储用户偏好");

    const mixed = await memory.search("fastapi 服务");
    expect(mixed.results[0]?.path).toBe("memory/2026-01-02.md");
    expect(mixed.results[0]?.snippet).toContain("Lin 喜欢用 Python");
    expect((await memory.search("回滚方案")).results[0]?.snippet).toContain("ops/rollback.md");
  });

  it("a Chinese question finds the note with its content words, not the one with its question word", async () => {
    await writeFiles(ws, {
      "memory/2026-01-04.md": "# 2026-01-04\n\n## 10:00\n哪个版本都行，哪天都可以，问谁都一样\n",
      "memory/2026-01-05.md": "# 2026-01-05\n\n## 10:00\n回滚方案写在运维手册里\n",
      // Unrelated notes, so that terms found in one note have a real IDF.
      ...Object.fromEntries(
        ["周一开会", "买咖啡豆", "修自行车", "看电影", "写周报", "跑步五公里"].map((text, i) => [
          `memory/2026-02-0${i + 1}.md`,
          `# 2026-02-0${i + 1}\n\n## 10:00\n${text}\n`,
        ]),
      ),
    });
    const memory = await memoryOf();
    await memory.sync();
    const answer = await memory.search("回滚方案写在哪个文件？", { mode: "keyword", minScore: 0 });
    const paths = answer.results.map((r) => r.path);
    expect(paths[0]).toBe("memory/2026-01-05.md");
    expect(paths).not.toContain("memory/2026-01-04.md");
  });

  it("without a provider, hybrid search answers from BM25 and says it is degraded", async () => {
    await writeFiles(ws, { "MEMORY.md": "The deploy window is Tuesday.\n" });
    const memory = await memoryOf();
    await memory.sync();
    const response = await memory.search("deploy window");
    expect(response).toMatchObject({ mode: "keyword", degraded: true });
    expect(response.degradedReason).toContain("no embedding provider");
    expect(response.results).toHaveLength(1);
    await expect(memory.search("deploy", { mode: "vector" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    expect((await memory.search("deploy", { mode: "keyword" })).degraded).toBe(false);
  });

  it("hybrid search with an embedder: vectors in sqlite-vec, cache makes re-syncs free", async () => {
    await writeFiles(ws, {
      "MEMORY.md": "# Prefs\n\nUser prefers dark mode and vim keybindings.\n",
      "memory/2026-01-02.md":
        "# 2026-01-02\n\n## 10:00\nDeployed the ledger service; rollback plan in ops/rollback.md\n",
    });
    const embedder = createHashingEmbedder({ dims: 32 });
    const memory = await memoryOf({ embedder });
    const first = await memory.sync();
    expect(first?.embedding.embedded).toBeGreaterThan(0);
    expect((await memory.store.stats()).vectors).toBe((await memory.store.stats()).chunks);

    const response = await memory.search("rollback plan");
    expect(response).toMatchObject({ mode: "hybrid", degraded: false });
    expect(response.results[0]).toMatchObject({
      path: "memory/2026-01-02.md",
      provider: "hashing",
      model: "hashing-32",
    });
    expect(response.results[0]?.scores.vector).toBeGreaterThan(0);
    expect(response.results[0]?.scores.text).toBeGreaterThan(0);
    expect((await memory.search("rollback plan", { fusion: "rrf" })).results[0]?.path).toBe(
      "memory/2026-01-02.md",
    );

    const calls = embedder.batchCalls;
    expect((await memory.sync())?.embedding.embedded).toBe(0);
    const rebuilt = await memory.sync({ force: true });
    expect(rebuilt).toMatchObject({ rebuilt: true, embedding: { embedded: 0 } });
    expect(rebuilt?.embedding.cacheHits).toBeGreaterThan(0);
    expect(embedder.batchCalls).toBe(calls);
  });

  it("a changed embedding identity switches the vectors; vectors of two models never meet", async () => {
    await writeFiles(ws, { "MEMORY.md": "alpha beta gamma\n" });
    const a = await memoryOf({ embedder: createHashingEmbedder({ dims: 16 }) });
    await a.sync();
    await a.close();
    const b = await memoryOf({ embedder: createHashingEmbedder({ dims: 24 }) });
    const before = await b.search("alpha");
    expect(before.degraded).toBe(true);
    expect(before.degradedReason).toContain("hashing/hashing-16/16");
    const report = await b.sync();
    // Only the vectors change: the keyword index stays while they are replaced.
    expect(report?.rebuilt).toBe(false);
    expect(report?.vectorSwitch).toMatchObject({
      from: "hashing/hashing-16/16",
      to: "hashing/hashing-24/24",
      switched: true,
      keptKeywordIndex: true,
    });
    expect(await b.store.dims()).toBe(24);
    expect((await b.search("alpha")).degraded).toBe(false);
  });

  it("follows edits, renames, deletes and metadata-only changes", async () => {
    await writeFiles(ws, {
      "memory/notes/a.md": "# A\n\nthe walrus operator\n",
      "memory/notes/b.md": "# B\n\nsecond file\n",
    });
    const memory = await memoryOf();
    expect(await memory.sync()).toMatchObject({ added: 2, chunks: 2 });

    await appendFile(join(ws, "memory/notes/a.md"), "\npattern matching with match/case\n");
    expect(await memory.sync()).toMatchObject({ updated: 1, unchanged: 1 });
    expect((await memory.search("pattern matching")).results[0]?.path).toBe("memory/notes/a.md");

    await rename(join(ws, "memory/notes/a.md"), join(ws, "memory/notes/c.md"));
    expect(await memory.sync()).toMatchObject({ added: 1, removed: 1 });
    expect((await memory.search("walrus")).results.map((r) => r.path)).toEqual([
      "memory/notes/c.md",
    ]);

    await rm(join(ws, "memory/notes/c.md"));
    expect(await memory.sync()).toMatchObject({ removed: 1 });
    expect((await memory.search("walrus")).results).toEqual([]);

    const later = new Date(Date.now() + 60_000);
    await utimes(join(ws, "memory/notes/b.md"), later, later);
    expect(await memory.sync()).toMatchObject({ touched: 1, chunks: 0, updated: 0 });
    expect(await memory.sync()).toMatchObject({ touched: 0, unchanged: 1 });
  });

  it("a sync of some paths follows only those: edits, deletes, unknown and unchanged paths", async () => {
    await writeFiles(ws, {
      "memory/notes/a.md": "# A\n\nthe walrus operator\n",
      "memory/notes/b.md": "# B\n\nsecond file\n",
      "memory/notes/c.md": "# C\n\nthird file\n",
    });
    const memory = await memoryOf();
    await memory.sync();

    await appendFile(join(ws, "memory/notes/a.md"), "\npattern matching with match/case\n");
    await appendFile(join(ws, "memory/notes/b.md"), "\nunsynced zebra\n");
    await rm(join(ws, "memory/notes/c.md"));
    await writeFiles(ws, { "memory/notes/d.md": "# D\n\nfresh quokka\n" });
    const report = await memory.sync({
      paths: ["memory/notes/a.md", "memory/notes/c.md", "memory/notes/d.md", "memory/none.md"],
    });
    expect(report).toMatchObject({ updated: 1, added: 1, removed: 1, unchanged: 0 });
    expect((await memory.search("pattern matching")).results[0]?.path).toBe("memory/notes/a.md");
    expect((await memory.search("quokka")).results[0]?.path).toBe("memory/notes/d.md");
    expect((await memory.search("third")).results).toEqual([]);
    // b.md was not named: it waits for a full sync.
    expect((await memory.search("zebra")).results).toEqual([]);
    expect(await memory.sync({ paths: ["memory/notes/a.md"] })).toMatchObject({
      unchanged: 1,
      chunks: 0,
    });
    expect(await memory.sync()).toMatchObject({ updated: 1, removed: 0 });
    expect((await memory.search("zebra")).results[0]?.path).toBe("memory/notes/b.md");
  });

  it("what the agent writes is searchable at once, and cites its lines", async () => {
    const memory = await memoryOf();
    const added = await memory.appendDaily(
      "Decided to pin the CI image to Debian 12 (ticket OPS-412)",
      { date: "2026-03-04" },
    );
    expect(added.path).toBe("memory/2026-03-04.md");
    const hit = (await memory.search("OPS-412")).results[0];
    expect(hit).toMatchObject({ path: added.path, tier: "short" });
    expect(hit?.startLine).toBeLessThanOrEqual(added.startLine);
    expect(hit?.endLine).toBeGreaterThanOrEqual(added.endLine);
    const lines = await memory.get(added.path, {
      from: added.startLine,
      lines: added.endLine - added.startLine + 1,
    });
    expect(lines.text).toContain("OPS-412");

    await memory.appendLongTerm("用户偏好：回答先给结论");
    expect((await memory.search("先给结论")).results[0]?.path).toBe("MEMORY.md");
  });

  it("the archive is searched only on request; tier filters work", async () => {
    await writeFiles(ws, {
      "memory/archive/daily/2025-01-01.md": "old kangaroo note\n",
      "memory/mid-term/projects/x/status.md": "kangaroo project status\n",
    });
    const memory = await memoryOf();
    await memory.sync();
    expect((await memory.search("kangaroo")).results.map((r) => r.tier)).toEqual(["mid"]);
    expect(
      (await memory.search("kangaroo", { tiers: ["archive"] })).results.map((r) => r.path),
    ).toEqual(["memory/archive/daily/2025-01-01.md"]);
  });

  it("deleting .engram is safe: the next sync rebuilds the same index", async () => {
    await writeFiles(ws, { "MEMORY.md": "# M\n\nsome durable fact about otters\n" });
    let memory = await memoryOf();
    await memory.sync();
    const before = await memory.search("otters");
    await memory.close();
    await rm(join(ws, ".engram"), { recursive: true, force: true });
    memory = await memoryOf();
    expect((await memory.sync())?.added).toBe(1);
    expect((await memory.search("otters")).results).toEqual(before.results);
  });

  it("indexes extraPaths, honours a custom tier map, ignores symlinks and non-Markdown files", async () => {
    const outside = await tempDir("engram-extra-");
    try {
      await writeFiles(outside, {
        "team/handbook.md": "# Handbook\n\non-call rotation is weekly\n",
        "team/notes.txt": "on-call txt",
      });
      await writeFiles(ws, {
        "memory/people/lin.md": "Lin owns the on-call schedule\n",
        "memory/notes.txt": "on-call plain text is not indexed\n",
      });
      await symlink(join(outside, "team"), join(ws, "memory", "linked"));
      const memory = await memoryOf({
        config: { extraPaths: [join(outside, "team")], tiers: { mid: ["memory/people/**"] } },
      });
      const report = await memory.sync();
      expect(report?.added).toBe(2);
      const hits = (await memory.search("on-call")).results;
      expect(hits.map((r) => [r.path, r.tier]).sort()).toEqual([
        [join(outside, "team/handbook.md"), "long"],
        ["memory/people/lin.md", "mid"],
      ]);
      const extra = hits.find((r) => r.tier === "long");
      expect((await memory.get(extra?.path ?? "")).text).toContain("on-call rotation");
      await expect(memory.get("memory/linked/handbook.md")).rejects.toMatchObject({
        code: "PATH_OUTSIDE_WORKSPACE",
      });
    } finally {
      await removeDir(outside);
    }
  });

  describe("bad input", () => {
    it("skips a non-UTF-8 file with a warning and keeps what was indexed for it", async () => {
      await writeFiles(ws, { "memory/notes/gbk.md": "lemur facts\n", "MEMORY.md": "fine\n" });
      const memory = await memoryOf();
      await memory.sync();
      await writeFile(
        join(ws, "memory/notes/gbk.md"),
        Buffer.from([0xc4, 0xe3, 0xba, 0xc3, 0xff, 0x0a]),
      );
      const report = await memory.sync();
      expect(report?.skipped).toEqual([
        expect.objectContaining({ path: "memory/notes/gbk.md", code: "INVALID_ENCODING" }),
      ]);
      expect((await memory.search("lemur")).results[0]?.path).toBe("memory/notes/gbk.md");
      expect((await memory.status()).lastSync?.skipped[0]?.reason).toContain("UTF-8");
    });

    it("skips a 50 MB file without loading it, and an empty file is fine", async () => {
      await writeFiles(ws, { "memory/empty.md": "", "MEMORY.md": "ok\n", "memory/huge.md": "" });
      await truncate(join(ws, "memory/huge.md"), 50 * 1024 * 1024);
      const memory = await memoryOf();
      const report = await memory.sync();
      expect(report?.skipped).toEqual([
        expect.objectContaining({ path: "memory/huge.md", code: "FILE_TOO_LARGE" }),
      ]);
      expect(report?.added).toBe(2);
      expect((await memory.search("ok")).results).toHaveLength(1);
    });

    it("a malformed config is a clear error, a missing workspace too", async () => {
      await writeFile(join(ws, "engram.config.json"), '{ "search": { "maxResults": "six" } }');
      await expect(memoryOf()).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringContaining("search.maxResults"),
      });
      await expect(
        createMemory({ workspace: join(ws, "nope"), store: sqliteStore() }),
      ).rejects.toMatchObject({
        code: "WORKSPACE_MISSING",
      });
    });

    it("memory_get refuses paths outside the memory files", async () => {
      await writeFiles(ws, { "MEMORY.md": "x\n", "engram.config.json": "{}" });
      const memory = await memoryOf();
      await expect(memory.get("../etc/passwd")).rejects.toMatchObject({
        code: "PATH_OUTSIDE_WORKSPACE",
      });
      await expect(memory.get("/etc/passwd")).rejects.toMatchObject({
        code: "PATH_OUTSIDE_WORKSPACE",
      });
      await expect(memory.get("engram.config.json")).rejects.toMatchObject({
        code: "PATH_NOT_ALLOWED",
      });
    });
  });

  it("two memories on one workspace in one process sync one at a time and agree", async () => {
    await writeFiles(
      ws,
      Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`memory/n/${i}.md`, `note ${i} about bison\n`]),
      ),
    );
    const [a, b] = [await memoryOf(), await memoryOf()];
    const [ra, rb] = await Promise.all([a.sync(), b.sync()]);
    expect((ra?.added ?? 0) + (rb?.added ?? 0)).toBe(50);
    expect((await a.store.stats()).files).toBe(50);
    expect((await b.search("bison", { maxResults: 100 })).results).toHaveLength(50);
  });
});
