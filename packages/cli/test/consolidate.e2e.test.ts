import { spawn } from "node:child_process";
import { cp, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, engram, removeDir, tempDir, withoutProviderEnv, writeFiles } from "./helpers.js";

/** `path → text` of every file, minus `.engram/`. */
async function files(root: string, rel = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === ".engram") continue;
    if (e.isDirectory()) for (const [k, v] of await files(root, child)) out.set(k, v);
    else out.set(child, await readFile(join(root, child), "utf8"));
  }
  return out;
}

const NOW = ["--now", "2026-03-02T03:00:00"];
const MEMORY =
  "# Long-term Memory\n\n## Team\n\n- Lin prefers advisory locks over Redis locks\n- lin prefers advisory locks over Redis locks.\n- 用户喜欢简洁的回答\n";
const LOG =
  "# 2026-03-01\n\n## 10:00\n\nRelease 7 is blocked on the migration review #important\n\nlunch was fine\n";

describe("engram consolidate / forget / update (built CLI)", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await removeDir(d);
  });

  it("plans (writing nothing), applies the plan it showed, and undoes it", async () => {
    const ws = await tempDir("engram-consolidate-");
    dirs.push(ws);
    await writeFiles(ws, { "MEMORY.md": MEMORY, "memory/2026-03-01.md": LOG });
    const before = await files(ws);

    const text = await engram(["consolidate", "plan", "--no-model", "-w", ws, ...NOW]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("op-1 MERGE MEMORY.md:5, MEMORY.md:6");
    expect(text.stdout).toContain(
      "op-2 ADD → MEMORY.md: Release 7 is blocked on the migration review",
    );
    expect(text.stdout).toContain("--- a/MEMORY.md");
    expect(text.stdout).toContain("+- Release 7 is blocked on the migration review");
    const plan = await engram(["consolidate", "plan", "--no-model", "--json", "-w", ws, ...NOW]);
    const shown = JSON.parse(plan.stdout);
    expect(shown.mode).toBe("deterministic");
    expect(shown.operations.map((o: { op: string }) => o.op)).toEqual(["MERGE", "ADD"]);
    expect(shown.diffs.map((d: { path: string }) => d.path)).toContain("MEMORY.md");
    expect(await files(ws)).toEqual(before);

    const applied = await engram([
      "consolidate",
      "apply",
      "--no-model",
      "--json",
      "-w",
      ws,
      ...NOW,
    ]);
    expect(applied.code, applied.stderr).toBe(0);
    const result = JSON.parse(applied.stdout);
    expect(result).toMatchObject({ outcome: "committed", reused: true, applyId: shown.passId });
    const after = await files(ws);
    expect(after.get("MEMORY.md")).not.toContain("lin prefers advisory locks over Redis locks.");
    expect(after.get("memory/archive/consolidation/2026-03-02.md")).toContain(
      "- lin prefers advisory locks over Redis locks.",
    );
    expect(after.get("memory/dreams/2026-03-02.md")).toContain("### Merged");
    expect(after.get("memory/2026-03-01.md")).toBe(LOG);

    const search = await engram(["search", "advisory locks", "--json", "-w", ws]);
    const hits = JSON.parse(search.stdout).results as Array<{ path: string; tier: string }>;
    expect(hits.some((h) => h.path.startsWith("memory/dreams/"))).toBe(false);

    const undo = await engram(["consolidate", "undo", "-w", ws]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("Undid the last consolidation pass");
    expect(await files(ws)).toEqual(before);
    const nothing = await engram(["consolidate", "undo", "-w", ws]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("there is no consolidation to undo");
  });

  it("forgets and updates long-term memory, refuses logs without --from-log, and undoes each", async () => {
    const ws = await tempDir("engram-forget-");
    dirs.push(ws);
    await writeFiles(ws, { "MEMORY.md": MEMORY, "memory/2026-03-01.md": LOG });
    const before = await files(ws);

    const dry = await engram(["forget", "用户喜欢简洁", "--dry-run", "-w", ws]);
    expect(dry.stdout).toContain("would forget MEMORY.md:7-7");
    const forgot = await engram(["forget", "用户喜欢简洁", "--reason", "outdated", "-w", ws]);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect((await files(ws)).get("MEMORY.md")).not.toContain("用户喜欢简洁的回答");
    const gone = await engram(["search", "简洁的回答", "--json", "--mode", "keyword", "-w", ws]);
    expect(
      JSON.parse(gone.stdout).results.some((r: { path: string }) => r.path === "MEMORY.md"),
    ).toBe(false);
    expect((await engram(["forget", "--undo", "-w", ws])).code).toBe(0);
    expect(await files(ws)).toEqual(before);

    const log = await engram(["forget", "memory/2026-03-01.md:7", "-w", ws]);
    expect(log.code).toBe(2);
    expect(log.stderr).toContain("--from-log");

    const updated = await engram([
      "update",
      "MEMORY.md:7",
      "用户喜欢先给结论，再给理由",
      "--reason",
      "clarified",
      "-w",
      ws,
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    expect((await files(ws)).get("MEMORY.md")).toContain("- 用户喜欢先给结论，再给理由\n");
    const section = await engram([
      "update",
      "MEMORY.md#Team",
      "Lin prefers tea",
      "--json",
      "-w",
      ws,
    ]);
    expect(JSON.parse(section.stdout)).toMatchObject({
      path: "MEMORY.md",
      startLine: 5,
      endLine: 5,
    });
    expect((await engram(["update", "--undo", "-w", ws])).code).toBe(0);
    expect((await engram(["update", "--undo", "-w", ws])).code).toBe(0);
    expect(await files(ws)).toEqual(before);

    const status = await engram(["status", "--json", "-w", ws]);
    expect(JSON.parse(status.stdout).maintenance).toMatchObject({ schedule: "off", due: false });
  });

  it("a consolidation killed mid-apply is finished by the next run", async () => {
    const ws = await tempDir("engram-consolidate-kill-");
    const reference = await tempDir("engram-consolidate-ref-");
    dirs.push(ws, reference);
    const many: Record<string, string> = { "MEMORY.md": "# Long-term Memory\n" };
    for (let i = 0; i < 150; i++) {
      many[`memory/long-term/topic-${i}.md`] =
        `# Topic ${i}\n\n- fact ${i} 第${i}条\n- Fact ${i} 第${i}条.\n`;
    }
    await writeFiles(ws, many);
    expect(
      (await engram(["consolidate", "plan", "--no-model", "--json", "-w", ws, ...NOW])).code,
    ).toBe(0);
    await cp(ws, reference, { recursive: true });
    const ref = await engram([
      "consolidate",
      "apply",
      "--no-model",
      "--json",
      "-w",
      reference,
      ...NOW,
    ]);
    expect(JSON.parse(ref.stdout)).toMatchObject({ outcome: "committed", reused: true });
    const expected = await files(reference);

    const child = spawn(
      process.execPath,
      [BIN, "consolidate", "apply", "--no-model", "-w", ws, ...NOW],
      {
        env: { ...withoutProviderEnv(process.env), ENGRAM_WORKSPACE: "" },
        stdio: "ignore",
      },
    );
    const journal = join(ws, ".engram", "lifecycle", "journal.json");
    const started = Date.now();
    while (Date.now() - started < 30_000) {
      if (
        await readFile(journal).then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));

    // Nothing lost mid-way: every line is in a file (the archive is written first).
    const mid = [...(await files(ws)).values()].join("\n");
    for (const text of Object.values(many)) {
      for (const l of text.split("\n")) if (l.trim()) expect(mid.includes(l), l).toBe(true);
    }
    const next = await engram(["consolidate", "apply", "--no-model", "--json", "-w", ws, ...NOW]);
    expect(next.code, next.stderr).toBe(0);
    expect(await files(ws)).toEqual(expected);
  }, 120_000);
});
