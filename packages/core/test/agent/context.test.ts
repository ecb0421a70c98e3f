import { describe, expect, it } from "vitest";
import { buildMemoryContext, getMemoryContext, getRecentMemories } from "../../src/agent/index.js";
import { fixedClock } from "../../src/workspace/clock.js";
import { resolveLayout } from "../../src/workspace/presets.js";
import { tempDir, writeFiles } from "../workspace/helpers.js";

const clock = fixedClock("2026-03-04T10:00:00");

async function workspace(files: Record<string, string>, layout?: "logs") {
  const ws = await tempDir();
  await writeFiles(ws, files);
  return { workspace: ws, clock, layout: resolveLayout(layout ? { layout } : {}) };
}

const FILES = {
  "MEMORY.md": "# Long-term Memory\n\n用户的生日是五月。\n",
  "memory/long-term/user_profile.md": "---\nname: Alice\n---\n# User profile\n",
  "memory/2026-03-04.md":
    "# 2026-03-04\n\n## 09:00\n\n今天讨论了部署。\n\n<!-- engram:private -->\n银行卡尾号 1234\n<!-- /engram:private -->\n\n## 09:30\n\nPublic note.\n",
  "memory/2026-03-03.md": "---\nsensitive: true\n---\n# 2026-03-03\n\nMedical appointment.\n",
  "memory/2026-03-02.md": "# 2026-03-02\n\nThree days ago.\n",
};

describe("memory context", () => {
  it("main scope: long-term memory, profile, today's and yesterday's logs under headers", async () => {
    const memory = await workspace(FILES);
    const context = await buildMemoryContext(memory);
    expect(context.sections.map((s) => s.title)).toEqual([
      "Long-term memory",
      "User profile",
      "Today's notes (2026-03-04)",
      "Yesterday's notes (2026-03-03)",
    ]);
    expect(context.text).toMatch(
      /^## Long-term memory\n\n# Long-term Memory\n\n用户的生日是五月。\n\n## User profile/,
    );
    expect(context.text).toContain("银行卡尾号 1234");
    expect(context.text).not.toContain("Three days ago");
    expect(await getMemoryContext(memory, { days: 3 })).toContain("Three days ago");
  });

  it("group scope: never MEMORY.md or the profile, no sensitive file, no private block", async () => {
    const memory = await workspace(FILES);
    const context = await buildMemoryContext(memory, { scope: "group" });
    expect(context.sections.map((s) => s.path)).toEqual(["memory/2026-03-04.md"]);
    expect(context.text).toContain("今天讨论了部署。");
    expect(context.text).toContain("Public note.");
    for (const secret of ["生日", "Alice", "1234", "engram:private", "Medical"]) {
      expect(context.text).not.toContain(secret);
    }
    expect(context.omitted).toEqual([
      { path: "MEMORY.md", reason: "personal" },
      { path: "memory/long-term/user_profile.md", reason: "personal" },
      { path: "memory/2026-03-03.md", reason: "sensitive" },
    ]);
  });

  it("keeps within the budget: long-term keeps its start, a log its latest entries", async () => {
    const long = `# Long-term Memory\n\n${"长期记忆。".repeat(400)}`;
    const log = `# 2026-03-04\n\n${Array.from({ length: 200 }, (_, i) => `- entry ${i}`).join("\n")}\n`;
    const memory = await workspace({ "MEMORY.md": long, "memory/2026-03-04.md": log });
    const context = await buildMemoryContext(memory, { maxChars: 1500 });
    expect(context.text.length).toBeLessThanOrEqual(1500);
    expect(context.sections).toEqual([
      { title: "Long-term memory", path: "MEMORY.md", chars: expect.any(Number), truncated: true },
    ]);
    expect(context.omitted).toEqual([{ path: "memory/2026-03-04.md", reason: "budget" }]);
    expect(context.text).toMatch(/^## Long-term memory\n\n# Long-term Memory\n\n长期记忆。/);
    expect(context.text).toContain("more characters in MEMORY.md)");
    // A log alone is cut from its start: the latest entries stay.
    const logOnly = await workspace({ "memory/2026-03-04.md": log });
    const cut = await buildMemoryContext(logOnly, { maxChars: 600 });
    expect(cut.text.length).toBeLessThanOrEqual(600);
    expect(cut.sections[0]).toMatchObject({ truncated: true });
    expect(cut.text).toMatch(
      /^## Today's notes \(2026-03-04\)\n\n… \(\d+ more characters in memory\/2026-03-04\.md\)\n/,
    );
    expect(cut.text.endsWith("- entry 199")).toBe(true);
    const tiny = await buildMemoryContext(memory, { maxChars: 200 });
    expect(tiny.text.length).toBeLessThanOrEqual(200);
  });

  it("follows the layout: the logs layout reads memory/logs/ and memory/long-term.md", async () => {
    const memory = await workspace(
      {
        "memory/long-term.md": "## 2025-02-01 12:00\n\n用户偏好使用 Python。\n",
        "memory/logs/2026-03-04.md": "## Session abc\n\n### User\n今天天气怎么样？\n",
        "memory/2026-03-04.md": "not a log in this layout\n",
      },
      "logs",
    );
    const text = await getMemoryContext(memory);
    expect(text).toContain("用户偏好使用 Python。");
    expect(text).toContain("今天天气怎么样？");
    expect(text).not.toContain("not a log");
    expect(await getMemoryContext(memory, { scope: "group" })).not.toContain("Python");
  });

  it("getRecentMemories joins the last N days newest first; bad options are typed errors", async () => {
    const memory = await workspace(FILES);
    const recent = await getRecentMemories(memory, 3);
    expect(recent.indexOf("# 2026-03-04")).toBeLessThan(recent.indexOf("# 2026-03-03"));
    expect(recent).toContain("\n\n---\n\n# 2026-03-02");
    const group = await getRecentMemories(memory, 3, { scope: "group" });
    expect(group).not.toContain("Medical");
    expect(group).not.toContain("1234");
    await expect(buildMemoryContext(memory, { days: 0 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(buildMemoryContext(memory, { scope: "public" as never })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    await expect(getRecentMemories(memory, 2, { date: "2026-02-30" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });
});
