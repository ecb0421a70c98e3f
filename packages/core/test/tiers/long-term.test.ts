import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createTierApi, parseKnowledge, slugify } from "../../src/tiers/index.js";
import { readFrontMatter } from "../../src/workspace/front-matter.js";
import { tempDir, writeFiles } from "../workspace/helpers.js";
import { fileHost, steppingClock } from "./host.js";

const PROFILE = "memory/long-term/user_profile.md";
const DECISIONS = "memory/long-term/decisions";

async function setup() {
  const ws = await tempDir();
  const clock = steppingClock("2026-03-04T10:00:00");
  const host = fileHost(ws, clock);
  return { ws, clock, host, api: createTierApi(host).longTerm };
}
const read = (ws: string, rel: string) => readFile(path.join(ws, rel), "utf8");

describe("user profile", () => {
  it("keeps short facts as front matter and longer ones as sections, leaving others untouched", async () => {
    const { ws, api } = await setup();
    expect(await api.getUserProfile()).toEqual({ fields: {}, sections: {}, path: PROFILE });
    await api.updateUserProfile({
      fields: { name: "Alice", 语言: "中文" },
      sections: { Preferences: "- 深色主题\n- short answers", Habits: "Works late." },
    });
    expect(await read(ws, PROFILE)).toBe(
      "---\nname: Alice\n语言: 中文\nupdated: 2026-03-04\n---\n# User profile\n\n## Preferences\n\n- 深色主题\n- short answers\n\n## Habits\n\nWorks late.\n",
    );
    // A hand edit to one section survives an update of another.
    const edited = (await read(ws, PROFILE)).replace("Works late.", "Works late.  <!-- keep -->");
    await writeFiles(ws, { [PROFILE]: edited });
    const after = await api.updateUserProfile({
      fields: { name: null, role: "engineer" },
      sections: { Preferences: "- 浅色主题" },
    });
    expect(after.fields).toEqual({ 语言: "中文", updated: "2026-03-04", role: "engineer" });
    expect(after.sections).toEqual({
      Preferences: "- 浅色主题",
      Habits: "Works late.  <!-- keep -->",
    });
    expect(await read(ws, PROFILE)).toContain("## Habits\n\nWorks late.  <!-- keep -->\n");
    const removed = await api.updateUserProfile({ sections: { Preferences: null } });
    expect(Object.keys(removed.sections)).toEqual(["Habits"]);
  });

  it("refuses bad patches and never rewrites a profile whose front matter is broken", async () => {
    const { ws, api } = await setup();
    for (const patch of [
      { fields: { "a\nb": "x" } },
      { fields: { updated: "2020-01-01" } },
      { fields: { nested: { a: 1 } } },
      { sections: { "two\nlines": "x" } },
      { sections: { Notes: "## sneaky heading" } },
    ]) {
      await expect(api.updateUserProfile(patch as never)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    }
    await writeFiles(ws, { [PROFILE]: "---\nname: [\n---\nbody\n" });
    await expect(api.updateUserProfile({ fields: { a: "b" } })).rejects.toMatchObject({
      code: "FRONT_MATTER_INVALID",
    });
    expect(await read(ws, PROFILE)).toBe("---\nname: [\n---\nbody\n");
  });
});

describe("knowledge base", () => {
  it("appends entries under ## headings with a tags line, reporting their lines", async () => {
    const { ws, host, api } = await setup();
    const a = await api.addKnowledge("数据库", {
      title: "FTS5 分词",
      text: "SQLite FTS5 默认不切中文，需要自己分词。",
      tags: ["sqlite", "中文"],
    });
    const b = await api.addKnowledge("数据库", {
      title: "WAL",
      text: "Use WAL mode.\n\n### Why\nReaders.",
    });
    const rel = "memory/long-term/knowledge_base/数据库.md";
    const text = await read(ws, rel);
    expect(text).toBe(
      "# 数据库\n\n## FTS5 分词\n\ntags: sqlite, 中文\n\nSQLite FTS5 默认不切中文，需要自己分词。\n\n## WAL\n\nUse WAL mode.\n\n### Why\nReaders.\n",
    );
    const lines = text.split("\n");
    expect(lines[a.startLine - 1]).toBe("## FTS5 分词");
    expect(lines[a.endLine - 1]).toBe("SQLite FTS5 默认不切中文，需要自己分词。");
    expect(lines[b.startLine - 1]).toBe("## WAL");
    expect(lines[b.endLine - 1]).toBe("Readers.");
    expect(parseKnowledge(text, "数据库", rel)).toEqual([
      { ...a, text: a.text },
      { ...b, tags: [] },
    ]);
    expect(host.written).toEqual([rel, rel]);
  });

  it("validates domain, title, text and tags", async () => {
    const { api } = await setup();
    const ok = { title: "t", text: "x" };
    for (const [domain, input] of [
      ["../etc", ok],
      ["a/b", ok],
      ["d", { ...ok, title: "" }],
      ["d", { ...ok, text: " \n" }],
      ["d", { ...ok, text: "## not allowed" }],
      ["d", { ...ok, tags: ["a,b"] }],
      ["d", { ...ok, tags: "sqlite" }],
    ] as const) {
      await expect(api.addKnowledge(domain, input as never)).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    }
  });
});

describe("decision records", () => {
  it("writes decisions/YYYY-MM-DD_<slug>.md with CJK slugs, never overwriting", async () => {
    const { ws, api } = await setup();
    const input = {
      title: "采用 SQLite + FTS5 作为默认索引",
      context: "需要零依赖的本地索引。",
      decision: "默认使用 better-sqlite3。",
      consequences: "Native module per platform.",
    };
    const first = await api.recordDecision(input);
    expect(first).toEqual({
      path: `${DECISIONS}/2026-03-04_采用-sqlite-fts5-作为默认索引.md`,
      date: "2026-03-04",
      title: input.title,
    });
    const doc = readFrontMatter(await read(ws, first.path));
    expect(doc.data).toEqual({ status: "accepted", date: "2026-03-04", title: input.title });
    expect(doc.body).toBe(
      "\n# 采用 SQLite + FTS5 作为默认索引\n\n## Context\n\n需要零依赖的本地索引。\n\n## Decision\n\n默认使用 better-sqlite3。\n\n## Consequences\n\nNative module per platform.\n",
    );
    const second = await api.recordDecision(input);
    expect(second.path).toBe(`${DECISIONS}/2026-03-04_采用-sqlite-fts5-作为默认索引-2.md`);
    expect(await readdir(path.join(ws, DECISIONS))).toHaveLength(2);
  });

  it("supersedes an earlier decision, pointing from the old one to the new", async () => {
    const { ws, clock, api } = await setup();
    const old = await api.recordDecision({ title: "Use Postgres", context: "c", decision: "d" });
    clock.advance(86_400 * 3);
    const next = await api.recordDecision({
      title: "Use SQLite",
      context: "c",
      decision: "d",
      supersedes: path.posix.basename(old.path),
    });
    expect(next.supersedes).toBe(old.path);
    expect(readFrontMatter(await read(ws, old.path)).data).toMatchObject({
      status: "superseded",
      superseded_by: "2026-03-07_use-sqlite.md",
    });
    expect(readFrontMatter(await read(ws, next.path)).data).toMatchObject({
      supersedes: "2026-03-04_use-postgres.md",
    });
    await expect(
      api.recordDecision({
        title: "x",
        context: "c",
        decision: "d",
        supersedes: "2026-01-01_none.md",
      }),
    ).rejects.toMatchObject({ code: "FILE_NOT_FOUND" });
    await expect(
      api.recordDecision({
        title: "x",
        context: "c",
        decision: "d",
        supersedes: "../../MEMORY.md",
      }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(
      api.recordDecision({ title: "x", context: "", decision: "d" }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });

  it("slugs are file-name safe for any title", () => {
    expect(slugify("Hello, World! ")).toBe("hello-world");
    expect(slugify("数据库迁移：第二阶段")).toBe("数据库迁移-第二阶段");
    expect(slugify("../../etc/passwd")).toBe("etc-passwd");
    expect(slugify("！！！", "decision")).toBe("decision");
    expect(Array.from(slugify("长".repeat(100))).length).toBe(60);
    expect(slugify("Ｆｕｌｌｗｉｄｔｈ ＡＢＣ")).toBe("fullwidth-abc");
  });
});
