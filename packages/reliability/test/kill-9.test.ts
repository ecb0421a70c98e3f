import { access, cp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { counters, ok, okJson, start } from "./support/cli.js";
import { record } from "./support/figures.js";
import { type Random, random } from "./support/seed.js";
import {
  expectIndexEqualsFreshBuild,
  removeTemps,
  tempDir,
  tree,
  writeFiles,
} from "./support/workspace.js";

afterAll(removeTemps);

const NOW = ["--now", "2026-03-01T12:00:00"];
const NOW_MS = Date.parse("2026-03-01T12:00:00");

/**
 * Start `engram …args`, SIGKILL it after a seeded delay in [0, maxMs]; returns whether it was
 * still running (the kill landed mid-operation) and how long it had run.
 */
async function killMidway(args: string[], rnd: Random, maxMs: number) {
  const run = start(args);
  const delay = rnd.int(0, maxMs);
  await new Promise((r) => setTimeout(r, delay));
  const midway = run.child.exitCode === null && run.child.signalCode === null;
  run.child.kill("SIGKILL");
  const end = await run.done;
  return { midway: midway && end.signal === "SIGKILL", delay };
}

/** How long one run of `engram …args` takes here (the kills are spread over it). */
async function timeOf(args: string[]): Promise<number> {
  const t = Date.now();
  await ok(args);
  return Date.now() - t;
}

function note(i: number, version: number): string {
  const words = Array.from({ length: 60 }, (_, j) => `t${(i * 13 + j * 7 + version) % 503}`);
  return `# Note ${i}\n\nversion ${version} of note ${i} 第${i}条 ${words.join(" ")}\n\n## More\n\n${words.reverse().join(" ")}\n`;
}

/**
 * SIGKILL at seeded random points of journaled or transactional work, then the next run: the
 * index equals a fresh build of the files, the tree is the one an uninterrupted run leaves, and an
 * undo gives back the exact tree (contents and modification times).
 *
 * Extension point — killable operations: each `it` below is one: kill it midway, run the next
 * command, expect the tree an uninterrupted run gives, an exact undo and an index a fresh build
 * would give.
 */
describe("kill -9 at random points", () => {
  it("during sync: the next sync leaves the index a fresh build would", async () => {
    const rnd = random("kill -9 during sync");
    const ws = await tempDir();
    const files: Record<string, string> = { "MEMORY.md": "# Memory\n\n部署窗口是周二\n" };
    const versions = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      files[`memory/long-term/n${i}.md`] = note(i, 0);
      versions.set(i, 0);
    }
    await writeFiles(ws, files);
    const full = await timeOf(["sync", "--force", "-w", ws]);
    let kills = 0;
    let midway = 0;
    const rounds = 6;
    for (let round = 1; round <= rounds; round++) {
      // Seeded edits: change some notes, add some, delete some.
      for (const i of rnd.sample([...versions.keys()], rnd.int(5, 40))) {
        versions.set(i, round);
        await writeFile(join(ws, `memory/long-term/n${i}.md`), note(i, round));
      }
      for (let k = 0; k < rnd.int(0, 5); k++) {
        const i = 1000 + round * 10 + k;
        versions.set(i, round);
        await writeFile(join(ws, `memory/long-term/n${i}.md`), note(i, round));
      }
      for (const i of rnd.sample([...versions.keys()], rnd.int(0, 4))) {
        versions.delete(i);
        await rm(join(ws, `memory/long-term/n${i}.md`));
      }
      const force = rnd.next() < 0.3;
      const kill = await killMidway(["sync", ...(force ? ["--force"] : []), "-w", ws], rnd, full);
      kills++;
      if (kill.midway) midway++;
      await ok(["sync", "-w", ws]);
      await expectIndexEqualsFreshBuild(ws);
    }
    record("kill -9 during sync", {
      rounds,
      kills,
      "kills mid-sync": midway,
      files: versions.size + 1,
      "CLI runs": counters.runs,
    });
  });

  it("during lifecycle apply and undo: the tree an uninterrupted run leaves; undo exact", async () => {
    const rnd = random("kill -9 during lifecycle");
    const template = await tempDir();
    const files: Record<string, string> = { "MEMORY.md": "# Long-term Memory\n" };
    for (let i = 0; i < 120; i++) {
      const d = new Date(Date.UTC(2025, 9, 1) + i * 86_400_000).toISOString().slice(0, 10);
      files[`memory/${d}.md`] = `# ${d}\n\n## 10:00\n\nnote ${i} 第${i}条\n`;
    }
    for (let i = 0; i < 12; i++) {
      files[`memory/short-term/sessions/s${i}.md`] = `# Session ${i}\n\n会话 ${i}\n`;
    }
    await writeFiles(template, files);
    for (let i = 0; i < 12; i++) {
      const when = new Date(Math.floor((NOW_MS - (i % 2 ? 2 : 30 + i) * 3_600_000) / 1000) * 1000);
      await utimes(join(template, `memory/short-term/sessions/s${i}.md`), when, when);
    }
    // The reference: what an uninterrupted apply leaves.
    const reference = await tempDir();
    await copyTree(template, reference);
    const applyMs = await timeOf(["lifecycle", "apply", "-w", reference, ...NOW]);
    const applied = await tree(reference, { mtimes: false });

    let kills = 0;
    let midway = 0;
    const rounds = 3;
    for (let round = 1; round <= rounds; round++) {
      const ws = await tempDir();
      await copyTree(template, ws);
      const original = await tree(ws);
      await ok(["sync", "-w", ws]);
      const a = await killMidway(["lifecycle", "apply", "-w", ws, ...NOW], rnd, applyMs);
      kills++;
      if (a.midway) midway++;
      // The next run finishes (or rolls back) the interrupted apply, then applies what is left.
      await ok(["lifecycle", "plan", "-w", ws, ...NOW]);
      await ok(["lifecycle", "apply", "-w", ws, ...NOW]);
      expect(await tree(ws, { mtimes: false })).toEqual(applied);

      const u = await killMidway(["lifecycle", "undo", "-w", ws], rnd, applyMs);
      kills++;
      if (u.midway) midway++;
      await ok(["lifecycle", "plan", "-w", ws, ...NOW]);
      const left = await readdir(join(ws, ".engram", "lifecycle", "undo")).catch(() => []);
      if (left.some((n) => n.endsWith(".json"))) await ok(["lifecycle", "undo", "-w", ws]);
      expect(await tree(ws)).toEqual(original);
      await ok(["sync", "-w", ws]);
      await expectIndexEqualsFreshBuild(ws);
    }
    record("kill -9 during lifecycle", {
      rounds,
      kills,
      "kills mid-operation": midway,
      "files moved per apply": Object.keys(applied).filter(
        (p) => p.includes("archive/") && !p.endsWith("/"),
      ).length,
    });
  });

  it("during consolidation apply and undo: the tree an uninterrupted pass leaves, no line lost; undo exact", async () => {
    const rnd = random("kill -9 during consolidation");
    const NOW_C = ["--now", "2026-03-01T12:00:00"];
    const template = await tempDir();
    const files = consolidationWorkspace();
    await writeFiles(template, files);
    // Whole seconds: copies keep them exactly (fs.cp rounds finer times to the millisecond, and
    // a pass notes its sources' times: a copy would look touched to the next pass).
    for (const [rel, when] of Object.entries(files).map(
      ([rel], i) => [rel, NOW_MS - i * 60_000] as const,
    )) {
      await utimes(join(template, rel), new Date(when), new Date(when));
    }
    const sourceLines = await linesOf(template);
    await ok(["sync", "-w", template]);
    // Two distinct searches find each of three log lines: recall makes them promotion candidates.
    for (const q of [
      "vault unseal quorum",
      "operators who unseal the vault",
      "报销单据提交",
      "报销单据给财务",
      "kiosk printer driver",
      "zebra printer",
    ]) {
      await ok(["search", q, "-w", template]);
    }
    // The plan is saved in .engram/ (copied with the workspace): every apply below carries out
    // this same pass (same pass id, report and archive), as `engram consolidate apply` does after
    // `plan`.
    const plan = await okJson<{
      operations: Array<{ op: string; origin: string }>;
      guard: { failed: unknown[] };
      steps: number;
    }>(["consolidate", "plan", "--no-model", "-w", template, ...NOW_C]);
    const origins = new Set(plan.operations.map((o) => `${o.op} ${o.origin}`));
    expect([...origins].sort()).toEqual(["ADD important", "ADD recall", "MERGE duplicates"]);
    expect(plan.guard.failed).toEqual([]);

    // The reference: what an uninterrupted apply leaves, and its undo.
    const reference = await tempDir();
    await copyTree(template, reference);
    const untouched = await tree(reference);
    const applyMs = await timeOf(["consolidate", "apply", "--no-model", "-w", reference, ...NOW_C]);
    const applied = await tree(reference, { mtimes: false });
    expect(applied).not.toEqual(await tree(template, { mtimes: false }));
    const undoMs = await timeOf(["consolidate", "undo", "-w", reference]);
    expect(await tree(reference)).toEqual(untouched);

    const journal = (ws: string) =>
      access(join(ws, ".engram", "lifecycle", "journal.json")).then(
        () => true,
        () => false,
      );
    let kills = 0;
    let midway = 0;
    let journals = 0;
    const rounds = 4;
    for (let round = 1; round <= rounds; round++) {
      const ws = await tempDir();
      await copyTree(template, ws);
      const original = await tree(ws);
      const a = await killMidway(
        ["consolidate", "apply", "--no-model", "-w", ws, ...NOW_C],
        rnd,
        applyMs,
      );
      kills++;
      if (a.midway) midway++;
      if (await journal(ws)) journals++;
      expect(await missingLines(ws, sourceLines), `killed apply after ${a.delay} ms`).toEqual([]);
      // The next apply finishes (or rolls back, then carries out) the interrupted pass.
      await ok(["consolidate", "apply", "--no-model", "-w", ws, ...NOW_C]);
      expect(await tree(ws, { mtimes: false })).toEqual(applied);
      expect(await missingLines(ws, sourceLines)).toEqual([]);

      const u = await killMidway(["consolidate", "undo", "-w", ws], rnd, undoMs);
      kills++;
      if (u.midway) midway++;
      if (await journal(ws)) journals++;
      expect(await missingLines(ws, sourceLines), `killed undo after ${u.delay} ms`).toEqual([]);
      // The next command finishes (or rolls back) the interrupted undo; undo again if it was
      // rolled back.
      await ok(["consolidate", "plan", "--no-model", "-w", ws, ...NOW_C]);
      const left = await readdir(join(ws, ".engram", "lifecycle", "undo")).catch(() => []);
      if (left.some((n) => n.endsWith(".json"))) await ok(["consolidate", "undo", "-w", ws]);
      expect(await tree(ws)).toEqual(original);
      await ok(["sync", "-w", ws]);
      await expectIndexEqualsFreshBuild(ws);
    }
    record("kill -9 during consolidation", {
      rounds,
      kills,
      "kills mid-operation": midway,
      "kills leaving a journal": journals,
      "operations per pass": plan.operations.length,
      "journal steps per pass": plan.steps,
    });
  }, 480_000);
});

/** Copy a workspace keeping modification times (the lifecycle rules read them). */
async function copyTree(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true, preserveTimestamps: true, force: true });
}

/**
 * A workspace a deterministic consolidation pass has work in: 120 long-term files each with a
 * near-duplicate pair (MERGE), a MEMORY.md with duplicates in English and Chinese, and 20 daily
 * logs with lines marked important (ADD) and three facts the test's searches recall (ADD).
 */
function consolidationWorkspace(): Record<string, string> {
  const files: Record<string, string> = {
    "MEMORY.md":
      "# Long-term Memory\n\n## Team\n\n- Lin prefers advisory locks over Redis locks\n- lin prefers advisory locks over Redis locks.\n- 用户喜欢简洁的回答\n- 用户喜欢简洁的回答。\n",
  };
  for (let i = 0; i < 120; i++) {
    files[`memory/long-term/topic-${i}.md`] =
      `# Topic ${i}\n\n- fact ${i} 第${i}条 alpha${i}\n- Fact ${i} 第${i}条 alpha${i}.\n- unique line ${i} beta${i}\n`;
  }
  const recalled: Record<number, string> = {
    3: "\n## 15:00\n\n- the vault unseal quorum is three of five operators\n",
    8: "\n## 16:20\n\n- 报销单据每月五号之前提交给财务部\n",
    13: "\n## 11:45\n\n- the kiosk printer uses the zebra driver\n",
  };
  for (let d = 1; d <= 20; d++) {
    const day = `2026-02-${String(d).padStart(2, "0")}`;
    files[`memory/${day}.md`] =
      `# ${day}\n\n## 10:00\n\n- routine note ${d} gamma${d}\n- Release ${d} needs the review of team ${d} #important\n- 第${d}天的部署窗口是周二 ⭐\n${recalled[d] ?? ""}`;
  }
  return files;
}

/** Every non-blank line of the files under `root` (but `.engram/`). */
async function linesOf(root: string): Promise<string[]> {
  const lines = new Set<string>();
  for (const text of await texts(root)) {
    for (const line of text.split("\n")) if (line.trim()) lines.add(line);
  }
  return [...lines];
}

/** The lines of `lines` no file under `root` (but `.engram/`) holds any more. */
async function missingLines(root: string, lines: readonly string[]): Promise<string[]> {
  const all = (await texts(root)).join("\n");
  return lines.filter((line) => !all.includes(line));
}

async function texts(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const [rel, kind] of Object.entries(await tree(root, { mtimes: false }))) {
    if (kind !== "dir") out.push(await readFile(join(root, rel), "utf8"));
  }
  return out;
}
