import { spawn } from "node:child_process";
import { readdir, readFile, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, engram, removeDir, tempDir, withoutProviderEnv, writeFiles } from "./helpers.js";

const NOW = ["--now", "2026-01-12T10:00:00"];
const HOUR = 3_600_000;
const NOW_MS = Date.parse("2026-01-12T10:00:00");

/** `path → "mtime sha-ish"` of every file, minus `.engram/`: what an exact undo must give back. */
async function tree(root: string, rel = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === ".engram") continue;
    if (e.isDirectory()) for (const [k, v] of await tree(root, child)) out.set(k, v);
    else {
      const abs = join(root, child);
      out.set(child, `${(await stat(abs)).mtimeMs} ${await readFile(abs, "utf8")}`);
    }
  }
  return out;
}

interface PlanJson {
  items: Array<{ rule: string; from: string; to: string }>;
  recovered?: { kind: string; outcome: string };
}

/**
 * Issue 20, item 19: `lifecycle undo` gave every restored file the current time, so sessions
 * looked new and a `plan` after apply + undo no longer showed their moves (39 of 60 there); and
 * `lifecycle plan` finished an interrupted apply without a word.
 */
describe("engram lifecycle undo restores files exactly", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await removeDir(d);
  });

  it("gives back contents and modification times; the same plan follows", async () => {
    const ws = await tempDir("engram-undo-mtime-");
    dirs.push(ws);
    const files: Record<string, string> = {
      "MEMORY.md": "# Long-term Memory\n",
      // Already archived: the old log is appended to it (a rewrite, undone from its blob).
      "memory/archive/daily/2026-01-01.md": "# 2026-01-01\n\n## 08:00\n\nearlier part 之前\n",
      "memory/2026-01-01.md": "# 2026-01-01\n\n## 10:00\n\nlater part 之后\n",
    };
    const ages: Record<string, number> = {
      "MEMORY.md": 30 * 24,
      "memory/archive/daily/2026-01-01.md": 10 * 24 + 5,
      "memory/2026-01-01.md": 10 * 24,
    };
    for (let i = 0; i < 6; i++) {
      const path = `memory/short-term/sessions/session-${i}.md`;
      files[path] = `# Session ${i}\n\n会话 ${i}: working on item ${i}\n`;
      ages[path] = i % 2 === 0 ? 48 + i : 2 + i; // three are past the 24 h, three are not
    }
    await writeFiles(ws, files);
    for (const [path, hours] of Object.entries(ages)) {
      const when = new Date(Math.floor((NOW_MS - hours * HOUR) / 1000) * 1000);
      await utimes(join(ws, path), when, when);
    }
    const original = await tree(ws);

    const plan = async () => {
      const { code, stdout, stderr } = await engram([
        "lifecycle",
        "plan",
        "-w",
        ws,
        "--json",
        ...NOW,
      ]);
      expect(code, stderr).toBe(0);
      return JSON.parse(stdout) as PlanJson;
    };
    const first = await plan();
    expect(first.items.map((i) => i.from).sort()).toEqual([
      "memory/2026-01-01.md",
      "memory/short-term/sessions/session-0.md",
      "memory/short-term/sessions/session-2.md",
      "memory/short-term/sessions/session-4.md",
    ]);

    const apply = await engram(["lifecycle", "apply", "-w", ws, "--json", ...NOW]);
    expect(apply.code, apply.stderr).toBe(0);
    // A moved session keeps its age in the archive.
    const archived = first.items.find((i) => i.from.endsWith("session-0.md"))?.to ?? "";
    expect((await stat(join(ws, archived))).mtimeMs).toBe(
      Number(original.get("memory/short-term/sessions/session-0.md")?.split(" ")[0]),
    );

    const undo = await engram(["lifecycle", "undo", "-w", ws, "--json"]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(await tree(ws)).toEqual(original);
    expect((await plan()).items).toEqual(first.items);
  });

  it("plan says when it finished an interrupted apply", async () => {
    const ws = await tempDir("engram-plan-recovers-");
    dirs.push(ws);
    const logs: Record<string, string> = { "MEMORY.md": "# Long-term Memory\n" };
    for (let i = 0; i < 240; i++) {
      const d = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      logs[`memory/${d}.md`] = `# ${d}\n\n## 10:00\n\nnote ${i} 第${i}条\n`;
    }
    await writeFiles(ws, logs);
    const child = spawn(process.execPath, [BIN, "lifecycle", "apply", "-w", ws, ...NOW], {
      env: { ...withoutProviderEnv(process.env), ENGRAM_WORKSPACE: "" },
      stdio: "ignore",
    });
    const journal = join(ws, ".engram", "lifecycle", "journal.json");
    const progress = join(ws, ".engram", "lifecycle", "progress.json");
    // Kill once the apply has moved some files (its progress file exists).
    for (let waited = 0; waited < 20_000; waited += 5) {
      if (
        await readFile(progress).then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    expect(
      await readFile(journal).then(
        () => true,
        () => false,
      ),
    ).toBe(true);

    const text = await engram(["lifecycle", "plan", "-w", ws, ...NOW]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /An interrupted lifecycle apply was found: finished it \(\d+ steps/,
    );
    // Finished: nothing is left to plan, and the journal is gone.
    expect(text.stdout).toContain("Nothing to do");
    expect(
      await readFile(journal).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  }, 120_000);
});
