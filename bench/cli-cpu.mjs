// CPU and wall time of one `engram` process, the way agents call it: once per query.
//
//   node bench/cli-cpu.mjs [--runs 21] [--cli packages/cli/dist/bin.js] [--baseline other/bin.js] [--json file]
//   node bench/cli-cpu.mjs --workspace <dir> [--cases sync,audit,...] [--runs 3] [--baseline …]
//
// Without --workspace: the per-call cost, on the demo workspace. With --workspace (for example
// one written by `engram-bench synth --chunks 100000 --dir <dir>`): the commands whose work grows
// with the workspace — a search with its sync check, a sync with nothing to do, status, audit,
// the lifecycle and consolidation plans, forgetting by a text no entry holds (it reads every
// file). --cases picks some of them by name.
//
// Runs each case --runs times (after one warm-up run) and prints medians of user+sys CPU, which
// other load on a shared machine inflates far less than wall time, next to `node -e 0` measured
// in the same run. With --baseline (another build's bin.js, e.g. from a worktree of main), each
// run of a case alternates between the two CLIs, so both see the same machine, and the table
// gives the ratio. CPU is read in the measured process itself (process.cpuUsage() at exit, every
// thread of the process) through a preloaded reporter, so nothing but the process is counted.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "21" },
    cli: { type: "string", default: "packages/cli/dist/bin.js" },
    baseline: { type: "string" },
    json: { type: "string" },
    workspace: { type: "string" },
    cases: { type: "string" },
  },
});
const runs = Number(values.runs);
const cli = resolve(values.cli);
const baseline = values.baseline ? resolve(values.baseline) : undefined;
const scratch = mkdtempSync(join(tmpdir(), "engram-cli-cpu-"));
const reporter = join(scratch, "report-cpu.cjs");
writeFileSync(
  reporter,
  `process.on("exit", () => { const u = process.cpuUsage(); require("node:fs").appendFileSync(process.env.ENGRAM_CPU_REPORT, (u.user + u.system) / 1000 + "\\n"); });\n`,
);

const workspace = join(scratch, "ws");
const engramWith =
  (bin) =>
  (...args) => ["node", [bin, ...args]];
/** One measured process: CPU ms (from the reporter) and wall ms. */
function measureOnce([command, args], okCodes = [0]) {
  const report = join(scratch, "cpu.txt");
  rmSync(report, { force: true });
  const started = process.hrtime.bigint();
  const result = spawnSync(command, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NODE_OPTIONS: `--require ${reporter}`, ENGRAM_CPU_REPORT: report },
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e6;
  if (!okCodes.includes(result.status)) {
    throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  }
  return { cpu: Number(readFileSync(report, "utf8").trim()), wall };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Each case as [name, args]: the same workspace for both CLIs. */
let cases;
if (values.workspace) {
  // A workspace of the caller's, as it is: every case only reads (plans are not applied).
  const ws = resolve(values.workspace);
  cases = [
    ["node -e 0 (baseline)", null],
    ["search", ["search", "deploy rollback", "-w", ws]],
    ["sync", ["sync", "-w", ws]],
    ["status", ["status", "-w", ws]],
    ["audit", ["audit", "-w", ws]],
    ["lifecycle-plan", ["lifecycle", "plan", "-w", ws]],
    ["consolidate-plan", ["consolidate", "plan", "-w", ws]],
    // Exit code 2: nothing to forget, after reading every file.
    ["forget-dry-run", ["forget", "no entry holds this", "--from-log", "--dry-run", "-w", ws], [2]],
  ];
  const picked = values.cases?.split(",").map((c) => c.trim());
  if (picked) cases = cases.filter(([name], i) => i === 0 || picked.includes(name));
} else {
  // The demo workspace (English + Chinese notes), indexed once so each search finds nothing to sync.
  spawnSync("node", [cli, "demo", "--dir", workspace], { stdio: "ignore" });
  spawnSync("node", [cli, "sync", "-w", workspace], { stdio: "ignore" });
  cases = [
    ["node -e 0 (baseline)", null],
    ["engram --version", ["--version"]],
    ["engram search (demo workspace)", ["search", "migration blocker", "-w", workspace]],
    ["engram search --json (Chinese)", ["search", "用户偏好", "--json", "-w", workspace]],
    ["engram get MEMORY.md", ["get", "MEMORY.md", "-w", workspace]],
  ];
}
const commandOf = (bin, args) => (args ? engramWith(bin)(...args) : ["node", ["-e", "0"]]);
const load = loadavg().map((l) => l.toFixed(2));
const rows = [];
for (const [name, args, okCodes] of cases) {
  const bins = baseline && args ? [cli, baseline] : [cli];
  for (const bin of bins) measureOnce(commandOf(bin, args), okCodes);
  const samples = bins.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [j, bin] of bins.entries()) {
      samples[j].push(measureOnce(commandOf(bin, args), okCodes));
    }
  }
  const [mine, theirs] = samples.map((s) => ({
    cpuMs: median(s.map((x) => x.cpu)),
    wallMs: median(s.map((x) => x.wall)),
  }));
  rows.push({ name, ...mine, ...(theirs ? { baseline: theirs } : {}) });
}
rmSync(scratch, { recursive: true, force: true });

const base = rows[0].cpuMs;
const secs = (ms) => `${(ms / 1000).toFixed(3)} s`;
console.log(
  `${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, Node ${process.version}, load average before ${load.join(" ")}, ${runs} runs each (medians)`,
);
console.log(
  baseline
    ? "| command | CPU (user+sys) | wall | CPU, baseline | wall, baseline | CPU ratio |"
    : "| command | CPU (user+sys) | wall | CPU − node -e 0 |",
);
console.log(baseline ? "|---|--:|--:|--:|--:|--:|" : "|---|--:|--:|--:|");
for (const row of rows) {
  const cells = [row.name, secs(row.cpuMs), secs(row.wallMs)];
  if (baseline) {
    cells.push(
      row.baseline ? secs(row.baseline.cpuMs) : "",
      row.baseline ? secs(row.baseline.wallMs) : "",
      row.baseline ? (row.cpuMs / row.baseline.cpuMs).toFixed(2) : "",
    );
  } else {
    cells.push(secs(row.cpuMs - base));
  }
  console.log(`| ${cells.join(" | ")} |`);
}
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, load, runs, rows }, null, 2)}\n`,
  );
}
