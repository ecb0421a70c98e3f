import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/** `path sha256` of every file and `dir/` of every folder, minus `.engram/`. */
async function listing(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === ".engram") continue;
    if (e.isDirectory()) out.push(`${child}/`, ...(await listing(root, child)));
    else
      out.push(
        `${child} ${createHash("sha256")
          .update(await readFile(join(root, child)))
          .digest("hex")}`,
      );
  }
  return out.sort();
}

/** The built CLI end to end: plan → apply → undo, promote with dedupe, candidates. */
describe("engram lifecycle (CLI)", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir("engram-lifecycle-e2e-");
    await writeFiles(ws, {
      "MEMORY.md": "# Long-term Memory\n\n## 2026-01-01 09:00\n\n部署窗口是周二\n\n",
      "memory/2026-01-01.md": "# 2026-01-01\n\n## 10:00\n\n旧的日志：缓存放在 redis\n",
      "memory/2026-01-11.md": "# 2026-01-11\n\n## 10:00\n\nrecent note\n",
      "memory/mid-term/projects/alpha/status.md": "---\nstatus: done\ntitle: Alpha\n---\n# Alpha\n",
      "memory/mid-term/projects/alpha/notes.md": "# Alpha\n\n## Lessons\n\n- Batch embeddings\n",
    });
  });
  afterEach(async () => {
    await removeDir(ws);
  });

  it("plan shows every move with reasons; apply moves and indexes; undo restores the exact tree", async () => {
    const before = await listing(ws);
    const now = ["--now", "2026-01-12T10:00:00"];

    const plan = await engram(["lifecycle", "plan", "-w", ws, ...now]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      "archive memory/2026-01-01.md → memory/archive/daily/2026-01-01.md",
    );
    expect(plan.stdout).toMatch(
      /rule daily-retention: dated 2026-01-01, 11 days before today \(keeps 7\)/,
    );
    expect(plan.stdout).toContain(
      "archive memory/mid-term/projects/alpha → memory/archive/projects/alpha",
    );
    expect(plan.stdout).toContain("candidate (Lessons): Batch embeddings");
    expect(plan.stdout).not.toContain("2026-01-11.md →");
    expect(await listing(ws)).toEqual(before);

    const planJson = JSON.parse(
      (await engram(["lifecycle", "plan", "-w", ws, "--json", ...now])).stdout,
    );
    expect(planJson.items.map((i: { rule: string }) => i.rule)).toEqual([
      "daily-retention",
      "project-done",
    ]);

    const apply = await engram(["lifecycle", "apply", "-w", ws, "--json", ...now]);
    expect(apply.code).toBe(0);
    const applied = JSON.parse(apply.stdout);
    expect(applied).toMatchObject({ outcome: "committed", kind: "apply" });
    expect(await readFile(join(ws, "memory/archive/daily/2026-01-01.md"), "utf8")).toContain(
      "redis",
    );

    // The index followed: the archived log is found in the archive tier only.
    const search = await engram([
      "search",
      "缓存放在 redis",
      "-w",
      ws,
      "--json",
      "--tier",
      "archive",
    ]);
    expect(search.code, search.stderr).toBe(0);
    const found = JSON.parse(search.stdout);
    expect(found.results[0]?.path).toBe("memory/archive/daily/2026-01-01.md");

    const candidates = await engram(["lifecycle", "candidates", "-w", ws]);
    expect(candidates.stdout).toContain(
      "project alpha · Lessons  memory/archive/projects/alpha/notes.md:5-5",
    );

    const undo = await engram(["lifecycle", "undo", "-w", ws]);
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain("memory/archive/daily/2026-01-01.md → memory/2026-01-01.md");
    expect(await listing(ws)).toEqual(before);

    const again = await engram(["lifecycle", "undo", "-w", ws, "--json"]);
    expect(again.code).toBe(2);
    expect(JSON.parse(again.stderr).error.code).toBe("INVALID_ARGUMENT");
  });

  it("promote writes once and then names where the fact already lives", async () => {
    const first = await engram([
      "promote",
      "-w",
      ws,
      "Lin",
      "prefers",
      "short",
      "answers",
      "--section",
      "Preferences",
      "--tags",
      "user,style",
    ]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Promoted to MEMORY.md \(lines \d+-\d+\)/);
    const memory = await readFile(join(ws, "MEMORY.md"), "utf8");
    expect(memory).toContain("### Preferences\n\nLin prefers short answers\n\ntags: user, style");

    const dup = await engram(["promote", "-w", ws, "--json", "部署窗口是周二。"]);
    expect(JSON.parse(dup.stdout)).toMatchObject({
      written: false,
      duplicate: { path: "MEMORY.md", startLine: 5, endLine: 5, method: "exact" },
    });
    const text = await engram(["promote", "-w", ws, "部署窗口是周二"]);
    expect(text.stdout).toBe("Not written: already in MEMORY.md (lines 5-5; exact duplicate)\n");

    const bad = await engram(["promote", "-w", ws, "--threshold", "2", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--threshold must be a number from 0 to 1");
    expect(await readFile(join(ws, "MEMORY.md"), "utf8")).toBe(memory);
  });
});
