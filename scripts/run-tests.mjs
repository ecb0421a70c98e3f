// Runs every package's tests through turbo, then the summary, which prints whether or not the
// tests passed (a failing package no longer hides the totals and the list of what failed).
//
//   node scripts/run-tests.mjs            what `npm test` runs after lint, build and typecheck
//   node scripts/run-tests.mjs --scale    the heavyweight `*.scale.test.ts` files (`npm run test:scale`)
//   node scripts/run-tests.mjs --node     the default tests, reported apart as run under another
//                                         Node (scripts/test-on-node.mjs), one report per major
//
// Turbo replays a task's logs and reports when its inputs and the environment variables it lists
// are unchanged, and which Node runs the tests is neither: a run under Node 26 right after one
// under Node 24 replayed Node 24's results and ran nothing. So the Node that runs them is part of
// each test task's hash (`ENGRAM_TEST_NODE`, listed in turbo.json).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";

const scale = process.argv.includes("--scale");
const otherNode = !scale && process.argv.includes("--node");
const major = process.versions.node.split(".")[0];
const report = scale ? "vitest-scale" : otherNode ? `vitest-node-${major}` : "vitest";

// Results of an earlier run must not count as this run's.
for (const root of ["packages", "examples"]) {
  if (!existsSync(root)) continue;
  for (const name of readdirSync(root)) {
    for (const file of [`${report}.json`, `${report}-skipped.json`]) {
      rmSync(`${root}/${name}/test-results/${file}`, { force: true });
    }
  }
}

const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: "1",
  ENGRAM_TEST_NODE: process.version,
  ...(scale ? { ENGRAM_TEST_SCALE: "1" } : {}),
  ...(otherNode ? { ENGRAM_TEST_REPORT: report } : {}),
};
// One package at a time; inside a package vitest runs several files at once (vitest.shared.ts).
const tests = spawnSync("turbo", ["run", "test", "--concurrency=1", "--continue"], {
  stdio: "inherit",
  env,
  shell: process.platform === "win32",
});
const summary = spawnSync(
  process.execPath,
  ["scripts/test-summary.mjs", ...(scale ? ["--scale"] : otherNode ? ["--node", major] : [])],
  { stdio: "inherit" },
);
process.exitCode = tests.status !== 0 || summary.status !== 0 ? 1 : 0;
