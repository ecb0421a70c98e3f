import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/** `engram init --layout` and `engram context`, run as a user runs them. */
describe("engram init --layout / engram context", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
  });
  afterEach(() => removeDir(ws));

  it("creates the three-tier skeleton and records the layout, never overwriting", async () => {
    await writeFiles(ws, {
      "MEMORY.md": "# Mine\n\nkeep me\n",
      "engram.config.json": '{ "defaultTier": "mid" }\n',
    });
    const init = await engram(["init", "--layout", "three-tier", "--json", "--workspace", ws]);
    expect(init).toMatchObject({ code: 0, stderr: "" });
    const out = JSON.parse(init.stdout);
    expect(out.layout).toBe("three-tier");
    expect(out.created).toEqual(
      expect.arrayContaining([
        "memory/short-term/current-session.md",
        "memory/long-term/user_profile.md",
        "memory/mid-term/projects/.gitkeep",
        "memory/archive/daily/.gitkeep",
        "engram.config.json",
      ]),
    );
    expect(out.created).not.toContain("MEMORY.md");
    expect(await readFile(join(ws, "MEMORY.md"), "utf8")).toBe("# Mine\n\nkeep me\n");
    const config = JSON.parse(await readFile(join(ws, "engram.config.json"), "utf8"));
    expect(config).toMatchObject({
      defaultTier: "mid",
      layout: "three-tier",
      tiers: { mid: ["memory/mid-term/**"] },
    });
    expect((await stat(join(ws, "memory/long-term/decisions"))).isDirectory()).toBe(true);

    const again = await engram(["init", "--layout", "three-tier", "--workspace", ws]);
    expect(again.stdout).toContain("already a workspace; nothing changed");
    const other = await engram(["init", "--layout", "logs", "--workspace", ws]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('already sets layout "three-tier"');
    const bad = await engram(["init", "--layout", "bee", "--workspace", ws]);
    expect(bad).toMatchObject({ code: 2 });
    expect(bad.stderr).toContain('unknown layout "bee"');
  });

  it("logs layout: the Bee tree, and search places its files in their tiers", async () => {
    expect((await engram(["init", "--layout", "logs", "--workspace", ws])).code).toBe(0);
    await writeFiles(ws, {
      "memory/logs/2026-03-04.md": "## Session abc\n\n### User\n海豚的问题\n",
    });
    const search = JSON.parse(
      (await engram(["search", "海豚", "--json", "--workspace", ws])).stdout,
    );
    expect(search.results[0]).toMatchObject({ path: "memory/logs/2026-03-04.md", tier: "short" });

    // Writes follow the layout: the daily log in memory/logs/, long-term in memory/long-term.md.
    const daily = await engram([
      "add",
      "鲸鱼也是哺乳动物",
      "--date",
      "2026-03-05",
      "--json",
      "--workspace",
      ws,
    ]);
    expect(JSON.parse(daily.stdout)).toMatchObject({
      path: "memory/logs/2026-03-05.md",
      created: true,
    });
    const long = await engram(["add", "--long-term", "用户喜欢海洋", "--json", "--workspace", ws]);
    expect(JSON.parse(long.stdout)).toMatchObject({ path: "memory/long-term.md" });
    expect(await readFile(join(ws, "memory/long-term.md"), "utf8")).toContain("用户喜欢海洋");
    await expect(stat(join(ws, "MEMORY.md"))).rejects.toThrow();
  });

  it("context prints long-term memory and recent logs; --scope group keeps private things out", async () => {
    await engram(["init", "--workspace", ws]);
    await writeFile(join(ws, "MEMORY.md"), "# Long-term Memory\n\n用户叫小明。\n");
    await writeFiles(ws, {
      "memory/2026-03-04.md":
        "# 2026-03-04\n\n公开：发布了 v2。\n\n<!-- engram:private -->\n密码提示：猫\n<!-- /engram:private -->\n",
      "memory/2026-03-03.md": "# 2026-03-03\n\n昨天的记录。\n",
    });
    const main = await engram(["context", "--date", "2026-03-04", "--workspace", ws]);
    expect(main).toMatchObject({ code: 0, stderr: "" });
    expect(main.stdout).toContain("## Long-term memory\n\n# Long-term Memory\n\n用户叫小明。");
    expect(main.stdout).toContain("## Today's notes (2026-03-04)");
    expect(main.stdout).toContain("昨天的记录。");
    expect(main.stdout).toContain("密码提示");

    const group = await engram([
      "context",
      "--scope",
      "group",
      "--days",
      "1",
      "--date",
      "2026-03-04",
      "--json",
      "--workspace",
      ws,
    ]);
    const json = JSON.parse(group.stdout);
    expect(json.scope).toBe("group");
    expect(json.text).toContain("公开：发布了 v2。");
    for (const secret of ["小明", "密码", "昨天"]) expect(json.text).not.toContain(secret);
    expect(json.omitted).toEqual([{ path: "MEMORY.md", reason: "personal" }]);

    const bad = await engram(["context", "--scope", "public", "--workspace", ws]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--scope must be main or group");
  });
});
