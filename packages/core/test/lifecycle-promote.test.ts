import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  archiveSession,
  promote,
  promoteToLongTerm,
  promoteToMidTerm,
  promotionCandidates,
  RecallLog,
  undoLastApply,
} from "../src/lifecycle/index.js";
import { hostOf, NOW, tempWorkspace, treeListing, writeFiles } from "./lifecycle-fixture.js";

const read = (ws: string, rel: string) => readFile(path.join(ws, rel), "utf8");
const exists = (ws: string, rel: string) =>
  stat(path.join(ws, rel)).then(
    () => true,
    () => false,
  );

describe("promote", () => {
  it("appends under a timestamp heading with section and tags, then refuses duplicates naming where they live", async () => {
    const ws = await tempWorkspace();
    const host = hostOf(ws);
    const first = await promote(host, "Lin prefers concise answers in Chinese", {
      now: NOW,
      section: "Preferences",
      tags: ["user", "style"],
    });
    expect(first).toMatchObject({ written: true, path: "MEMORY.md" });
    const text = await read(ws, "MEMORY.md");
    expect(text).toContain(
      "## 2026-01-12 10:00\n\n### Preferences\n\nLin prefers concise answers in Chinese\n\ntags: user, style",
    );

    // Exact after normalisation (case, list marker, trailing period).
    const exact = await promote(host, "- lin prefers CONCISE answers in chinese.", { now: NOW });
    expect(exact).toMatchObject({
      written: false,
      duplicate: { path: "MEMORY.md", method: "exact" },
    });
    if (!exact.written) {
      const lines = text.split("\n").slice(exact.duplicate.startLine - 1, exact.duplicate.endLine);
      expect(lines.join("\n")).toContain("Lin prefers concise answers in Chinese");
    }
    // Near duplicate by terms.
    const near = await promote(host, "Lin prefers concise answers, in Chinese please", {
      now: NOW,
    });
    expect(near).toMatchObject({ written: false, duplicate: { method: "lexical" } });
    // Below the threshold: written.
    const other = await promote(host, "Lin deploys on Tuesdays", { now: NOW });
    expect(other.written).toBe(true);
    expect(await read(ws, "MEMORY.md")).toBe(
      `${text}## 2026-01-12 10:00\n\nLin deploys on Tuesdays\n\n`,
    );
  });

  it("dedupes Chinese text lexically across every long-term file", async () => {
    const ws = await tempWorkspace();
    await writeFiles(ws, {
      "memory/long-term/knowledge_base/deploy.md":
        "# 部署\n\n## 回滚\n\n回滚方案写在 ops/rollback.md 里\n\ntags: ops\n",
    });
    const host = hostOf(ws);
    const dup = await promote(host, "回滚方案写在 ops/rollback.md 里。", { now: NOW });
    expect(dup).toMatchObject({
      written: false,
      duplicate: {
        path: "memory/long-term/knowledge_base/deploy.md",
        method: "exact",
        startLine: 5,
        endLine: 5,
      },
    });
    const near = await promote(host, "回滚方案写在 ops/rollback.md 文件里", {
      now: NOW,
      threshold: 0.6,
    });
    expect(near.written).toBe(false);
    const fresh = await promote(host, "用户喜欢简洁的回答", { now: NOW });
    expect(fresh).toMatchObject({ written: true, path: "MEMORY.md" });
  });

  it("never promotes private text, and refuses empty text and files outside memory", async () => {
    const ws = await tempWorkspace();
    const host = hostOf(ws);
    await expect(
      promote(host, "<!-- engram:private -->\npassword hint\n<!-- /engram:private -->"),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(promote(host, "  ")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(promote(host, "x", { to: "../elsewhere.md" })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    expect(await exists(ws, "MEMORY.md")).toBe(false);
  });

  it("runs the summariser before dedupe and write", async () => {
    const ws = await tempWorkspace();
    const host = hostOf(ws);
    const summarise = async ({ text }: { text: string }) => `Summary: ${text.split("\n")[0]}`;
    const result = await promote(host, "first line\nsecond line", { now: NOW, summarise });
    expect(result).toMatchObject({ written: true, text: "Summary: first line" });
    expect(await read(ws, "MEMORY.md")).not.toContain("second line");
  });
});

describe("promotion candidates", () => {
  it("scores short-term text by recency, distinct queries + reads and importance; skips private and other tiers", async () => {
    const ws = await tempWorkspace();
    await writeFiles(ws, {
      "memory/2026-01-10.md":
        "# 2026-01-10\n\n## 09:00\n\n部署窗口是周二 #important\n\n## 10:00\n\nlunch was good\n",
      "memory/2026-01-11.md":
        "# 2026-01-11\n\n<!-- engram:private -->\nsecret plan\n<!-- /engram:private -->\n\nthe cache lives in redis\n",
      "MEMORY.md": "# Long-term Memory\n\nalready long-term\n",
    });
    const log = new RecallLog(ws, () => NOW);
    const hit = (p: string, s: number, e: number, tier: "short" | "long" = "short") => ({
      path: p,
      startLine: s,
      endLine: e,
      tier,
    });
    log.noteSearch("deploy window", [
      hit("memory/2026-01-10.md", 5, 5),
      hit("MEMORY.md", 3, 3, "long"),
    ]);
    log.noteSearch("部署 什么时候", [hit("memory/2026-01-10.md", 3, 5)]);
    log.noteSearch("deploy window", [hit("memory/2026-01-10.md", 5, 5)]); // same query again
    log.noteSearch("secret", [hit("memory/2026-01-11.md", 3, 5)]);
    log.noteSearch("secret plan", [hit("memory/2026-01-11.md", 3, 5)]);
    log.noteSearch("cache", [hit("memory/2026-01-11.md", 7, 7)]);
    log.noteGet("memory/2026-01-11.md", 7, 7, "short");
    log.noteGet("MEMORY.md", 1, 3, "long");
    await log.flush();

    const { candidates } = await promotionCandidates(hostOf(ws), {
      now: new Date(2026, 0, 14, 10, 0),
    });
    expect(
      candidates.map((c) => [c.path, c.startLine, c.endLine, c.frequency, c.importance]),
    ).toEqual([
      ["memory/2026-01-10.md", 3, 5, 2, 1],
      ["memory/2026-01-11.md", 7, 7, 2, 0],
    ]);
    const [top] = candidates;
    expect(top?.text).toContain("部署窗口是周二");
    // 2 days since the last recall: recency 1/2; score = 1·0.5 + 1·2 + 2·1.
    expect(top?.recency).toBe(0.5);
    expect(top?.score).toBe(4.5);
    const strict = await promotionCandidates(
      hostOf(ws, { lifecycle: { candidates: { minRecalls: 3 } } }),
      { now: NOW },
    );
    expect(strict.candidates).toEqual([]);
  });
});

describe("typed lifecycle operations", () => {
  it("archive(sessionId), promoteToMidTerm and promoteToLongTerm go through the journal and undo", async () => {
    const ws = await tempWorkspace();
    await writeFiles(ws, {
      "MEMORY.md":
        "# Long-term Memory\n\n## 2026-01-01 09:00\n\nUse SQLite FTS5 for keyword search\n\n",
      "memory/short-term/sessions/s1.md":
        "---\nupdated: 2026-01-12T09:00:00\n---\n# Session s1\n\n决定：向量检索使用 sqlite-vec\n\n<!-- engram:private -->\ntoken abc\n<!-- /engram:private -->\n",
      "memory/mid-term/projects/alpha/status.md": "---\nstatus: done\ntitle: Alpha\n---\n# Alpha\n",
      "memory/mid-term/projects/alpha/notes.md":
        "# Alpha notes\n\n## Decisions\n\n- Use SQLite FTS5 for keyword search\n- 向量检索使用 sqlite-vec\n\n## Lessons\n\n<!-- engram:private -->\nthe staging password is hunter2\n<!-- /engram:private -->\n\nBatch embeddings to stay under the rate limit.\n",
    });
    const host = hostOf(ws);
    const t0 = await treeListing(ws);

    await promoteToMidTerm(host, { sessionId: "s1" }, "alpha", { now: NOW });
    const notes = await read(ws, "memory/mid-term/projects/alpha/notes.md");
    expect(notes).toContain("## 2026-01-12 10:00\n\n# Session s1\n\n决定：向量检索使用 sqlite-vec");
    expect(notes).not.toContain("token abc");
    await expect(promoteToMidTerm(host, { text: "x" }, "nope", { now: NOW })).rejects.toMatchObject(
      {
        code: "FILE_NOT_FOUND",
      },
    );
    await expect(
      promoteToMidTerm(host, { text: "x" }, "../alpha", { now: NOW }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    const t1 = await treeListing(ws);

    const archived = await archiveSession(host, "s1", { now: NOW });
    expect(archived.outcome).toBe("committed");
    expect(await exists(ws, "memory/archive/sessions/2026/01/12/s1.md")).toBe(true);
    expect(await exists(ws, "memory/short-term/sessions/s1.md")).toBe(false);
    await expect(archiveSession(host, "s1", { now: NOW })).rejects.toMatchObject({
      code: "FILE_NOT_FOUND",
    });
    const t2 = await treeListing(ws);

    const result = await promoteToLongTerm(host, "alpha", { now: NOW });
    expect(result.promoted.map((p) => p.text)).toEqual([
      "向量检索使用 sqlite-vec",
      "Batch embeddings to stay under the rate limit.",
    ]);
    expect(result.duplicates.map((d) => [d.text, d.duplicate.path])).toEqual([
      ["Use SQLite FTS5 for keyword search", "MEMORY.md"],
    ]);
    expect(result.archivedTo).toBe("memory/archive/projects/alpha");
    const memory = await read(ws, "MEMORY.md");
    expect(memory).toContain("### alpha: Decisions\n\n向量检索使用 sqlite-vec");
    expect(memory).not.toContain("hunter2");
    expect(await read(ws, "memory/archive/projects/alpha/notes.md")).toContain("hunter2");

    await undoLastApply(host);
    expect(await treeListing(ws)).toEqual(t2);
    await undoLastApply(host);
    expect(await treeListing(ws)).toEqual(t1);
    await undoLastApply(host);
    expect(await treeListing(ws)).toEqual(t0);
  });
});
