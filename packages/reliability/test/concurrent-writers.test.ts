import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { cleanEnv, counters, engram, NEVER_SHOWN, ok, type Run, start } from "./support/cli.js";
import { record } from "./support/figures.js";
import { random } from "./support/seed.js";
import {
  dumpIndex,
  expectIndexEqualsFreshBuild,
  removeTemps,
  tempDir,
  writeFiles,
} from "./support/workspace.js";

const WRITER = fileURLToPath(new URL("./fixtures/writer.mjs", import.meta.url));
const DATE = "2026-01-15";
const WRITERS = 4;
const ENTRIES = 100;
const CLI_ADDS = 24;

function writer(ws: string, id: number): Promise<Run> {
  counters.runs++;
  const child = spawn(process.execPath, [WRITER, ws, String(id), String(ENTRIES), DATE], {
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}

afterAll(removeTemps);

/**
 * N processes append to one day's log and sync at once — library writers (as agents embed
 * engram), `engram add`, `engram sync`, `engram search` and a running `engram watch` — with the
 * figure of what each saw. Nothing appended may be lost or torn, the index must hold every line
 * without a final sync, and no user may see "database is locked".
 */
describe("concurrent writers and syncs", () => {
  it("lose nothing, tear nothing, and never show a lock error", async () => {
    const rnd = random("concurrent writers");
    const ws = await tempDir();
    const notes: Record<string, string> = { "MEMORY.md": "# Memory\n\n部署窗口是周二\n" };
    for (let i = 0; i < 60; i++) notes[`memory/long-term/n${i}.md`] = `# N${i}\n\nnote ${i}\n`;
    await writeFiles(ws, notes);
    await ok(["sync", "-w", ws]);

    const watch = start(["watch", "--debounce", "300", "-w", ws]);
    let watching = "";
    watch.child.stdout.on("data", (d) => (watching += d));
    while (!watching.includes("Watching")) await new Promise((r) => setTimeout(r, 50));
    const runs: Array<Promise<Run>> = [];
    for (let id = 0; id < WRITERS; id++) runs.push(writer(ws, id));
    // The CLI alongside: adds, syncs and searches at seeded moments while the writers run.
    const cli = (async () => {
      const out: Run[] = [];
      for (let i = 0; i < CLI_ADDS; i++) {
        await new Promise((r) => setTimeout(r, rnd.int(0, 150)));
        const kind = rnd.pick(["add", "add", "sync", "search"] as const);
        const args =
          kind === "add"
            ? ["add", `cli entry ${i} token c${i} 命令行${i}`, "--date", DATE]
            : kind === "sync"
              ? ["sync"]
              : ["search", `w${rnd.int(0, WRITERS - 1)}x${rnd.int(0, ENTRIES - 1)}`];
        const run = await engram([...args, "-w", ws]);
        out.push({ ...run, stdout: kind === "add" ? `ADDED c${i}` : run.stdout });
      }
      return out;
    })();
    const writers = await Promise.all(runs);
    const cliRuns = await cli;
    watch.child.kill("SIGTERM");
    const watched = await watch.done;

    // Every process ended well and showed nothing it must not.
    for (const run of [...writers, ...cliRuns, watched]) {
      expect(run.code, `${run.signal} ${run.stderr}`).toBe(0);
      expect(run.stderr).not.toMatch(NEVER_SHOWN);
    }
    const counts = writers.map(
      (w) => JSON.parse(w.stdout) as { misses: number; syncSkipped: number },
    );
    expect(counts.map((c) => c.misses)).toEqual(counts.map(() => 0)); // each found what it wrote

    // Nothing lost, nothing torn: every entry once, whole, in the log.
    const log = await readFile(join(ws, `memory/${DATE}.md`), "utf8");
    const expected = [
      ...Array.from({ length: WRITERS * ENTRIES }, (_, k) => {
        const id = Math.floor(k / ENTRIES);
        const i = k % ENTRIES;
        return `writer ${id} entry ${i} token w${id}x${i} 第${i}条记录`;
      }),
      ...cliRuns
        .filter((r) => r.stdout.startsWith("ADDED"))
        .map((r) => {
          const i = Number(r.stdout.slice("ADDED c".length));
          return `cli entry ${i} token c${i} 命令行${i}`;
        }),
    ];
    const lines = log.split("\n");
    const entries = lines.filter((l) => l !== "" && !l.startsWith("#"));
    expect(entries.sort()).toEqual([...expected].sort());
    expect(lines.filter((l) => l.startsWith("# ")).length).toBe(1); // one title

    // The index holds every line without a final sync (the writers' closes flushed theirs).
    const before = await dumpIndex(ws);
    const indexed = before.chunks.join("\n");
    const lost = expected.filter((e) => !indexed.includes(e));
    expect(lost).toEqual([]);
    // And after one more sync it equals an index built from scratch.
    await ok(["sync", "-w", ws]);
    await expectIndexEqualsFreshBuild(ws);

    record("concurrent writers", {
      processes: WRITERS + cliRuns.length + 1,
      "lines appended": expected.length,
      "lines lost": lost.length,
      "syncs skipped (lock busy)": counts.reduce((n, c) => n + c.syncSkipped, 0),
      "CLI runs": counters.runs,
    });
  });
});
