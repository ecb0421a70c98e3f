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

const NOW = ["--now", "2026-01-12T10:00:00"];

/** A real `kill -9` in the middle of `engram lifecycle apply`: the next run finishes the job. */
describe("engram lifecycle apply killed mid-way", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const d of dirs.splice(0)) await removeDir(d);
  });

  it("loses and duplicates nothing; the next apply ends in the same tree as an uninterrupted one", async () => {
    const ws = await tempDir("engram-lifecycle-kill-");
    const reference = await tempDir("engram-lifecycle-ref-");
    dirs.push(ws, reference);
    const logs: Record<string, string> = { "MEMORY.md": "# Long-term Memory\n" };
    for (let i = 0; i < 240; i++) {
      const d = new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      logs[`memory/${d}.md`] = `# ${d}\n\n## 10:00\n\nnote ${i} 第${i}条\n`;
    }
    await writeFiles(ws, logs);
    await cp(ws, reference, { recursive: true });
    expect((await engram(["lifecycle", "apply", "-w", reference, ...NOW])).code).toBe(0);
    const expected = await files(reference);

    const child = spawn(process.execPath, [BIN, "lifecycle", "apply", "-w", ws, ...NOW], {
      env: { ...withoutProviderEnv(process.env), ENGRAM_WORKSPACE: "" },
      stdio: "ignore",
    });
    // Kill once the journal exists (the apply has started moving files).
    const journal = join(ws, ".engram", "lifecycle", "journal.json");
    const started = Date.now();
    while (Date.now() - started < 20_000) {
      const there = await readFile(journal).then(
        () => true,
        () => false,
      );
      if (there) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 150));
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));

    // Nothing lost (a file may exist twice mid-move, never zero times).
    const mid = [...(await files(ws)).values()].join("\n");
    for (const text of Object.values(logs)) expect(mid.includes(text.trim())).toBe(true);

    // The next run recovers (waiting out the dead process's lock) and applies the rest.
    const next = await engram(["lifecycle", "apply", "-w", ws, "--json", ...NOW]);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).recovered).toMatchObject({
      kind: "apply",
      outcome: "committed",
    });
    expect(await files(ws)).toEqual(expected);
  }, 120_000);
});
