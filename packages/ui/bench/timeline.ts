/**
 * How long a workspace of 10,000 memory files takes to open its timeline in `engram ui`.
 *
 *   node --import tsx bench/timeline.ts [--files 10000] [--runs 7] [--out results.json]
 *
 * The workspace: ten years of daily logs (the last 60 days live in `memory/`, the rest archived
 * in `memory/archive/daily/`, as the lifecycle leaves them), session notes, project notes and
 * knowledge pages, English and Chinese, up to `--files` files in all; indexed once (SQLite, no
 * provider) before anything is timed, as a workspace in use is.
 *
 * Each run times:
 * - `build`: the timeline's first page built in process with a cold workspace listing (what a
 *   request costs right after a file changed),
 * - `start`: `startUi` until it returns the URL (the watcher's first crawl included),
 * - `first`: the first GET /timeline over real HTTP on 127.0.0.1, right after the start,
 * - `warm`: the median of 5 more (the listing is kept until a file changes),
 * - `browser`: Chromium (Debian's, when /usr/bin/chromium is there) opening the printed URL of
 *   a freshly started server until the page's load event (token → cookie redirect, HTML,
 *   stylesheet, script); the same browser, a new context each run.
 * The first GET's CPU time (this process: server and client) is recorded too: on a shared,
 * busy machine it is steadier than the wall time.
 * Baseline, in the same run: core's `scanWorkspace` of the same tree (the listing the timeline
 * cannot do without). Every figure is the median of `--runs` runs.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createMemory, localDate } from "@engram/core";
import { scanWorkspace } from "@engram/core/internal";
import { seededRandom } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { WorkspaceListing } from "../src/data/listing.js";
import { buildTimeline } from "../src/data/timeline.js";
import { startUi } from "../src/index.js";
import { CHROMIUM, launchChromium } from "../test/chromium.js";

const { values } = parseArgs({
  options: {
    files: { type: "string", default: "10000" },
    runs: { type: "string", default: "7" },
    out: { type: "string" },
  },
});
const FILES = Number(values.files);
const RUNS = Number(values.runs);

const rand = seededRandom(20261125);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
const EN = [
  "Deployed the release to staging and watched the error rate",
  "Lin prefers advisory locks over Redis locks for the job queue",
  "The migration blocker is the missing index on orders.created_at",
  "Reviewed the rollback plan with the on-call engineer",
  "Customer asked for weekly summaries instead of daily ones",
  "Benchmarked hybrid search at ten thousand chunks",
];
const ZH = [
  "长期记忆存储用户偏好，检索时优先返回",
  "今天和团队讨论了部署计划和回滚方案",
  "用户希望回答先给结论，再给理由",
  "向量检索使用 sqlite-vec，关键词检索使用 FTS5",
];

async function makeWorkspace(files: number): Promise<string> {
  const ws = await mkdtemp(path.join(os.tmpdir(), "engram-ui-bench-"));
  const write = async (rel: string, text: string) => {
    await mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
    await writeFile(path.join(ws, rel), text);
  };
  await write("MEMORY.md", `# Long-term Memory\n\n## 2026-01-01 09:00\n\n${pick(EN)}\n`);
  let count = 1;
  const today = new Date();
  const logs = Math.min(3650, Math.floor(files * 0.4));
  for (let d = 0; d < logs && count < files; d++, count++) {
    const date = localDate(new Date(today.getFullYear(), today.getMonth(), today.getDate() - d));
    const entries = Array.from({ length: 3 + Math.floor(rand() * 5) }, (_, i) => {
      const hh = String(8 + i * 2).padStart(2, "0");
      return `## ${hh}:${String(Math.floor(rand() * 60)).padStart(2, "0")}\n\n${rand() < 0.3 ? pick(ZH) : pick(EN)}. ${pick(EN)}.\n`;
    });
    const dir = d < 60 ? "memory" : "memory/archive/daily";
    await write(`${dir}/${date}.md`, `# ${date}\n\n${entries.join("\n")}`);
  }
  for (let i = 0; count < files; i++, count++) {
    const kind = i % 3;
    const rel =
      kind === 0
        ? `memory/archive/sessions/${2016 + (i % 10)}/${String((i % 12) + 1).padStart(2, "0")}/s-${i}.md`
        : kind === 1
          ? `memory/long-term/knowledge_base/topic-${i}.md`
          : `memory/archive/projects/p-${Math.floor(i / 10)}/notes-${i}.md`;
    await write(rel, `# Note ${i}\n\n${pick(EN)}.\n\n${pick(ZH)}。\n`);
  }
  return ws;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const ws = await makeWorkspace(FILES);
  const generateMs = performance.now() - t0;
  const memory = await createMemory({ workspace: ws, store: sqliteStore(), embedder: null });
  const syncMs = await timed(() => memory.sync());
  const scanned = (await scanWorkspace({ workspace: ws })).files.length;
  console.error(
    `workspace: ${scanned} files (generated in ${Math.round(generateMs)} ms, indexed in ${Math.round(syncMs)} ms)`,
  );

  const browser = existsSync(CHROMIUM) ? await launchChromium() : null;
  if (!browser) console.error(`no ${CHROMIUM}: the browser figure is left out`);

  const scan: number[] = [];
  const build: number[] = [];
  const start: number[] = [];
  const cold: number[] = [];
  /** CPU time of this process (server and client) during the first GET: steadier than wall time on a busy machine. */
  const firstCpu: number[] = [];
  const warm: number[] = [];
  const inBrowser: number[] = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run++) {
    scan.push(await timed(() => scanWorkspace({ workspace: ws })));
    build.push(
      await timed(() => buildTimeline(memory, new WorkspaceListing(ws, []), { scope: "group" })),
    );
    const started = performance.now();
    const ui = await startUi({ memory, watch: true });
    start.push(performance.now() - started);
    try {
      const get = async () => {
        const res = await fetch(`${ui.origin}/timeline`, {
          headers: { authorization: `Bearer ${ui.token}` },
        });
        const body = await res.text();
        if (res.status !== 200 || !body.includes("today"))
          throw new Error(`timeline answered ${res.status}`);
        bytes = body.length;
      };
      const cpu0 = process.cpuUsage();
      cold.push(await timed(get));
      const cpu = process.cpuUsage(cpu0);
      firstCpu.push((cpu.user + cpu.system) / 1000);
      const w: number[] = [];
      for (let i = 0; i < 5; i++) w.push(await timed(get));
      warm.push(median(w));
      if (browser) {
        // A fresh server again, so the browser meets a cold listing too.
        await ui.close();
        const fresh = await startUi({ memory, watch: true });
        const context = await browser.newContext();
        const page = await context.newPage();
        const t = performance.now();
        await page.goto(fresh.url, { waitUntil: "load" });
        inBrowser.push(performance.now() - t);
        if (!(await page.locator("section.day").count())) throw new Error("the browser saw no day");
        await context.close();
        await fresh.close();
      }
    } finally {
      await ui.close();
    }
  }
  await browser?.close();
  await memory.close();
  await rm(ws, { recursive: true, force: true });

  const result = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
    files: scanned,
    runs: RUNS,
    pageBytes: bytes,
    medianMs: {
      scanBaseline: median(scan),
      timelineBuildCold: median(build),
      serverStart: median(start),
      timelineFirst: median(cold),
      timelineFirstCpu: median(firstCpu),
      timelineWarm: median(warm),
      ...(inBrowser.length ? { browserLoad: median(inBrowser) } : {}),
    },
    loadAverage: os.loadavg(),
    runsMs: { scan, build, start, first: cold, firstCpu, warm, browser: inBrowser },
  };
  const m = result.medianMs;
  console.log(`files                         ${scanned}`);
  console.log(`scanWorkspace (baseline)      ${m.scanBaseline.toFixed(1)} ms`);
  console.log(
    `timeline built, cold listing  ${m.timelineBuildCold.toFixed(1)} ms  (${(m.timelineBuildCold / m.scanBaseline).toFixed(2)}× the scan)`,
  );
  console.log(`startUi (to the printed URL)  ${m.serverStart.toFixed(1)} ms`);
  console.log(
    `GET /timeline, first          ${m.timelineFirst.toFixed(1)} ms  (CPU ${m.timelineFirstCpu.toFixed(1)} ms)`,
  );
  console.log(`GET /timeline, warm           ${m.timelineWarm.toFixed(1)} ms`);
  if (m.browserLoad !== undefined)
    console.log(`Chromium: URL → load event    ${m.browserLoad.toFixed(1)} ms`);
  console.log(
    `(medians of ${RUNS} runs; page ${Math.round(bytes / 1024)} KB; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} on ${os.cpus().length} cores)`,
  );
  if (values.out) await writeFile(values.out, `${JSON.stringify(result, null, 2)}\n`);
}

await main();
