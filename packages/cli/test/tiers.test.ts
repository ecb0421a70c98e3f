// The tier APIs, group-scope search and tier weights of @engram/core over a real SQLite index.
import { createMemory, createTierApi, fixedClock, type Memory } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const clock = fixedClock("2026-03-04T10:00:00");
const opened: { memory: Memory; dir: string }[] = [];
afterEach(async () => {
  for (const { memory, dir } of opened.splice(0)) {
    await memory.close();
    await removeDir(dir);
  }
});

async function open(files: Record<string, string> = {}, config = {}) {
  const dir = await tempDir("engram-tiers-");
  await writeFiles(dir, files);
  const memory = await createMemory({
    workspace: dir,
    store: sqliteStore(),
    embedder: null,
    readConfigFile: false,
    config,
    clock,
  });
  opened.push({ memory, dir });
  await memory.sync();
  return memory;
}

describe("tier APIs over SQLite", () => {
  it("searchKnowledge finds entries by query, domain and tags, and sees writes at once", async () => {
    const memory = await open();
    const { longTerm } = createTierApi(memory);
    await longTerm.addKnowledge("数据库", {
      title: "FTS5 中文分词",
      text: "SQLite 的 FTS5 默认不切中文，engram 自己做二元分词。",
      tags: ["sqlite", "中文"],
    });
    await longTerm.addKnowledge("数据库", {
      title: "WAL 模式",
      text: "WAL 让读者不阻塞写者。",
      tags: ["sqlite"],
    });
    await longTerm.addKnowledge("前端", {
      title: "字体",
      text: "中文分词与字体无关。",
      tags: ["css"],
    });

    const all = await longTerm.searchKnowledge("中文分词");
    expect(all.map((k) => [k.domain, k.title])).toEqual(
      expect.arrayContaining([
        ["数据库", "FTS5 中文分词"],
        ["前端", "字体"],
      ]),
    );
    expect(all.every((k) => k.title !== "WAL 模式")).toBe(true);
    const db = await longTerm.searchKnowledge("中文分词", { domain: "数据库" });
    expect(db.map((k) => k.title)).toEqual(["FTS5 中文分词"]);
    expect(db[0]).toMatchObject({
      tags: ["sqlite", "中文"],
      path: "memory/long-term/knowledge_base/数据库.md",
    });
    expect(await longTerm.searchKnowledge("中文分词", { tags: ["CSS"] })).toEqual([
      expect.objectContaining({ domain: "前端", title: "字体" }),
    ]);
    expect(await longTerm.searchKnowledge("WAL", { tags: ["中文"] })).toEqual([]);
    await expect(longTerm.searchKnowledge("x", { domain: "../x" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });

  it("tier API writes land in their tier and are searchable without a manual sync", async () => {
    const memory = await open();
    const tiers = createTierApi(memory);
    await tiers.shortTerm.appendSession("正在排查 narwhal 服务的超时");
    await tiers.midTerm.updateProject("narwhal", {
      summary: "narwhal 服务迁移",
      decisions: ["narwhal 用 gRPC"],
    });
    await tiers.longTerm.recordDecision({
      title: "narwhal 协议",
      context: "c",
      decision: "narwhal 采用 gRPC",
    });
    const { results } = await memory.search("narwhal", { maxResults: 10 });
    const byPath = Object.fromEntries(results.map((r) => [r.path, r.tier]));
    expect(byPath).toMatchObject({
      "memory/short-term/current-session.md": "short",
      "memory/mid-term/projects/narwhal/status.md": "mid",
      "memory/mid-term/projects/narwhal/notes.md": "mid",
      "memory/long-term/decisions/2026-03-04_narwhal-协议.md": "long",
    });
  });
});

describe("search: tier weights and group scope", () => {
  it("ranks the long-term copy of a fact above the daily-log one with the same score", async () => {
    const text = "The staging database password rotates every Monday.\n";
    const memory = await open({ "MEMORY.md": text, "memory/2026-03-04.md": text });
    const { results } = await memory.search("staging password rotates");
    expect(results.map((r) => r.tier)).toEqual(["long", "short"]);
    expect(results[1]?.score).toBeCloseTo((results[0]?.score ?? 0) * 0.94, 5);
    const flat = await open(
      { "MEMORY.md": text, "memory/2026-03-04.md": text },
      { search: { tierWeights: { short: 1 } } },
    );
    const tied = (await flat.search("staging password rotates")).results;
    expect(tied[0]?.score).toBe(tied[1]?.score);
  });

  it("group scope drops MEMORY.md, the profile, sensitive files and private blocks", async () => {
    const memory = await open({
      "MEMORY.md": "walrus fact in curated memory\n",
      "memory/long-term/user_profile.md": "# Profile\n\nwalrus lover\n",
      "memory/secret.md": "---\nsensitive: true\n---\nwalrus medical note\n",
      "memory/2026-03-04.md": `# 2026-03-04\n\n${"filler line\n".repeat(120)}\n<!-- engram:private -->\nwalrus bank pin\n<!-- /engram:private -->\n`,
      "memory/2026-03-03.md": "# 2026-03-03\n\nwalrus public note\n",
    });
    const main = await memory.search("walrus", { maxResults: 10 });
    expect(main.results.map((r) => r.path).sort()).toEqual([
      "MEMORY.md",
      "memory/2026-03-03.md",
      "memory/2026-03-04.md",
      "memory/long-term/user_profile.md",
      "memory/secret.md",
    ]);
    const group = await memory.search("walrus", { maxResults: 10, scope: "group" });
    expect(group.results.map((r) => r.path)).toEqual(["memory/2026-03-03.md"]);
  });

  it("a layout in the config sets the tier map; explicit tiers override it", async () => {
    const files = {
      "memory/logs/2026-03-04.md": "heron sighting\n",
      "memory/long-term.md": "heron facts\n",
    };
    const logs = await open(files, { layout: "logs" });
    const tiers = Object.fromEntries(
      (await logs.search("heron")).results.map((r) => [r.path, r.tier]),
    );
    expect(tiers).toEqual({ "memory/logs/2026-03-04.md": "short", "memory/long-term.md": "long" });
    const custom = await open(files, { layout: "logs", tiers: { short: ["memory/none/**"] } });
    const again = await custom.search("heron", { tiers: ["short", "mid", "long", "archive"] });
    expect(again.results.find((r) => r.path === "memory/logs/2026-03-04.md")?.tier).toBe("long");
  });
});
