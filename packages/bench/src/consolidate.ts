import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openMemory } from "@engram/cli";
import type { GenerateRequest, Memory } from "@engram/core";
import { createScriptedLanguageModel, seededRandom } from "@engram/core/testing";
import { median, timed } from "./stats.js";

/** Options of {@link benchConsolidate}. */
export interface ConsolidateBenchOptions {
  /** Files of the synthetic workspace (default 1000). */
  files?: number;
  /** Timed passes, each on a fresh copy (default 3). */
  runs?: number;
  /** Days of the model simulation (default 30). */
  days?: number;
  log?: (line: string) => void;
}

/** What {@link benchConsolidate} measured. */
export interface ConsolidateBenchResult {
  workspace: { files: number; dailyLogs: number; longTermFiles: number; entries: number };
  runs: number;
  /** A pass without a model (plan, then apply through the journal, the index following). */
  pass: { planMs: number; applyMs: number; totalMs: number; operations: number; merged: number };
  /** The next night's pass: one new daily log, nothing left to merge (plan + apply). */
  nextPassMs: number;
  /** The baseline of the same run: reading and hashing every file of the workspace once. */
  readHashMs: number;
  /**
   * A scripted model over a simulated daily log (12 entries a day, bilingual), consolidated each
   * night: tokens per pass counted with core's estimator (`estimateTokens`).
   */
  model: {
    days: number;
    input: { median: number; max: number };
    output: { median: number; max: number };
    calls: number;
  };
}

const EN = [
  "deploy",
  "rollback",
  "migration",
  "review",
  "Lin",
  "Postgres",
  "cache",
  "latency",
  "runner",
  "budget",
  "release",
  "incident",
];
const ZH = [
  "部署",
  "回滚",
  "迁移",
  "评审",
  "缓存",
  "延迟",
  "预算",
  "发布",
  "事故",
  "用户",
  "偏好",
  "项目",
];

function sentence(rand: () => number, i: number): string {
  const pick = (list: string[]) => list[Math.floor(rand() * list.length)] as string;
  return rand() < 0.5
    ? `${pick(EN)} ${pick(EN)} note ${i}: the ${pick(EN)} took ${Math.floor(rand() * 900) + 10} seconds`
    : `${pick(ZH)}${pick(ZH)}记录${i}：${pick(ZH)}用时${Math.floor(rand() * 900) + 10}秒`;
}

/** A synthetic workspace of `files` files: 70% daily logs, the rest long-term files with duplicates. */
async function buildWorkspace(
  root: string,
  files: number,
): Promise<ConsolidateBenchResult["workspace"]> {
  const rand = seededRandom(1000);
  const dailyLogs = Math.round(files * 0.7);
  const longTermFiles = files - dailyLogs - 1;
  let entries = 0;
  const write = async (rel: string, text: string) => {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), text);
  };
  await write("MEMORY.md", "# Long-term Memory\n\nCurated facts.\n");
  const start = Date.UTC(2024, 0, 1);
  for (let d = 0; d < dailyLogs; d++) {
    const date = new Date(start + d * 86_400_000).toISOString().slice(0, 10);
    const lines = Array.from(
      { length: 6 },
      (_, i) =>
        `## ${String(9 + i).padStart(2, "0")}:00\n\n${sentence(rand, d * 6 + i)}${i === 0 && d % 25 === 0 ? " #important" : ""}\n`,
    );
    entries += 6;
    await write(`memory/${date}.md`, `# ${date}\n\n${lines.join("\n")}`);
  }
  for (let f = 0; f < longTermFiles; f++) {
    const items: string[] = [];
    for (let i = 0; i < 8; i++) {
      const s = sentence(rand, f * 8 + i);
      items.push(`- ${s}`);
      if (rand() < 0.1) items.push(`- ${s}.`); // an exact duplicate, as agents write them
    }
    entries += items.length;
    await write(`memory/long-term/topic-${f}.md`, `# Topic ${f}\n\n${items.join("\n")}\n`);
  }
  return { files, dailyLogs, longTermFiles, entries };
}

async function readAndHash(root: string, rel = ""): Promise<void> {
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === ".engram") continue;
    if (e.isDirectory()) await readAndHash(root, child);
    else
      createHash("sha256")
        .update(await readFile(join(root, child)))
        .digest();
  }
}

/**
 * Time a consolidation pass without a model on a `files`-file workspace (medians of `runs` fresh
 * copies, against reading and hashing the files once), and count the tokens a model is sent per
 * consolidated day in a simulated month.
 */
export async function benchConsolidate(
  options: ConsolidateBenchOptions = {},
): Promise<ConsolidateBenchResult> {
  const log = options.log ?? (() => {});
  const files = options.files ?? 1000;
  const runs = options.runs ?? 3;
  const root = await mkdtemp(join(tmpdir(), "engram-bench-consolidate-"));
  try {
    const template = join(root, "template");
    const workspace = await buildWorkspace(template, files);
    const plans: number[] = [];
    const applies: number[] = [];
    const floors: number[] = [];
    const nexts: number[] = [];
    let operations = 0;
    let merged = 0;
    for (let r = 0; r < runs; r++) {
      const ws = join(root, `run-${r}`);
      await cp(template, ws, { recursive: true });
      floors.push(await timed(() => readAndHash(ws)));
      const memory = await openMemory(ws);
      try {
        await memory.sync();
        let plan: Awaited<ReturnType<Memory["consolidate"]>> | undefined;
        plans.push(
          await timed(async () => {
            plan = await memory.consolidate({ mode: "plan", model: null });
          }),
        );
        applies.push(await timed(() => memory.consolidate({ mode: "apply", model: null })));
        await memory.appendDaily("Release 12 shipped after the migration review", {
          date: "2027-01-01",
        });
        nexts.push(
          await timed(async () => {
            await memory.consolidate({ mode: "plan", model: null });
            await memory.consolidate({ mode: "apply", model: null });
          }),
        );
        operations = plan?.operations.length ?? 0;
        merged = plan?.operations.filter((o) => o.op === "MERGE").length ?? 0;
      } finally {
        await memory.close();
        await rm(ws, { recursive: true, force: true });
      }
      log(
        `run ${r + 1}/${runs}: plan ${plans.at(-1)?.toFixed(0)} ms, apply ${applies.at(-1)?.toFixed(0)} ms`,
      );
    }
    const model = await modelDays(join(root, "model"), options.days ?? 30);
    return {
      workspace,
      runs,
      pass: {
        planMs: median(plans),
        applyMs: median(applies),
        totalMs: median(plans.map((p, i) => p + (applies[i] as number))),
        operations,
        merged,
      },
      nextPassMs: median(nexts),
      readHashMs: median(floors),
      model,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A month of daily logs consolidated nightly by a scripted model that adds two notes a night. */
async function modelDays(ws: string, days: number): Promise<ConsolidateBenchResult["model"]> {
  await mkdir(join(ws, "memory"), { recursive: true });
  await writeFile(join(ws, "MEMORY.md"), "# Long-term Memory\n");
  const rand = seededRandom(7);
  const script = (request: GenerateRequest) => {
    const notes = (request.messages[0]?.content ?? "").split("## New notes")[1] ?? "";
    const lines = notes
      .split("\n")
      .map((l) => /^(.+?:\d+)\| (.+)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null && !m[2]?.startsWith("#"));
    return {
      operations: lines.slice(0, 2).map((m) => ({
        op: "ADD",
        text: m[2] as string,
        target: "",
        merge: [],
        sources: [m[1] as string],
        section: "",
        reason: "",
      })),
    };
  };
  const inputs: number[] = [];
  const outputs: number[] = [];
  let calls = 0;
  const start = Date.UTC(2026, 0, 1, 9);
  const memory = await openMemory(ws);
  try {
    for (let d = 0; d < days; d++) {
      for (let i = 0; i < 12; i++) {
        const date = new Date(start + d * 86_400_000 + i * 1_800_000).toISOString().slice(0, 10);
        await memory.appendDaily(sentence(rand, d * 12 + i), { date });
      }
      const model = createScriptedLanguageModel({
        script: (request) => ({ value: script(request) }),
      });
      const pass = await memory.consolidate({
        mode: "apply",
        model,
        now: new Date(start + (d + 1) * 86_400_000 - 6 * 3_600_000),
      });
      inputs.push(pass.plan.tokens.input);
      outputs.push(pass.plan.tokens.output);
      calls += pass.plan.tokens.calls;
    }
  } finally {
    await memory.close();
  }
  return {
    days,
    input: { median: median(inputs), max: Math.max(...inputs) },
    output: { median: median(outputs), max: Math.max(...outputs) },
    calls,
  };
}
