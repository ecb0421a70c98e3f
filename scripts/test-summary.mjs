// Totals the vitest JSON reports of every package into the lines a test run ends with: the
// failed tests by name, the skipped ones grouped by file and reason, then one closing line
// "tests: N passed, N failed, N skipped". It prints whether the run passed or not.
//
//   node scripts/test-summary.mjs            the reports of `npm test`
//   node scripts/test-summary.mjs --scale    the reports of `npm run test:scale`
//   node scripts/test-summary.mjs --node [major]   the reports of the runs under other Nodes
//                                            (scripts/test-on-node.mjs: vitest-node-<major>), or
//                                            of that major's run alone
//   node scripts/test-summary.mjs --all      all of them, and suites with their own report such
//                                            as packages/reliability/results/ (CI's closing line)
import { existsSync, readdirSync, readFileSync } from "node:fs";

const mode =
  ["all", "scale", "node"].find((name) => process.argv.includes(`--${name}`)) ?? "default";
/** `--node 26`: that major's report alone (a run under Node 26 prints its own totals). */
const afterNode = process.argv[process.argv.indexOf("--node") + 1] ?? "";
const major = /^\d+$/.test(afterNode) ? afterNode : "\\d+";
/** Whether a report file's name (without `.json`) is one this mode totals. */
const counted = {
  default: (name) => name === "vitest",
  scale: (name) => name === "vitest-scale",
  node: (name) => new RegExp(`^vitest-node-${major}$`).test(name),
  all: (name) => /^vitest(-scale|-node-\d+)?$/.test(name),
}[mode];

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];
/** `file — reason` → how many tests. */
const skips = new Map();
const dirs = ["packages", "examples"].flatMap((root) =>
  existsSync(root) ? readdirSync(root).map((name) => `${root}/${name}`) : [],
);
for (const dir of dirs) {
  const results = `${dir}/test-results`;
  const names = existsSync(results)
    ? readdirSync(results)
        .filter((file) => file.endsWith(".json"))
        .map((file) => file.slice(0, -".json".length))
        .filter(counted)
        .sort()
    : [];
  const files = names.map((name) => [name, `${results}/${name}.json`]);
  // --all adds suites that keep their own report, such as the reliability suite's results/.
  if (mode === "all") files.push(["vitest", `${dir}/results/vitest.json`]);
  for (const [name, file] of files) {
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, "utf8"));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    for (const result of report.testResults) {
      const path = `${dir}/${result.name.split(`${dir}/`).pop()}`;
      const failedTests = result.assertionResults.filter((t) => t.status === "failed");
      for (const test of failedTests) failures.push(`${path} > ${test.fullName}`);
      // A file that failed to load has no tests to name.
      if (result.status === "failed" && !failedTests.length) {
        failures.push(`${path}: ${result.message.split("\n")[0] || "failed to run"}`);
      }
    }
    const reasons = `${dir}/test-results/${name}-skipped.json`;
    if (!existsSync(reasons)) continue;
    for (const skip of JSON.parse(readFileSync(reasons, "utf8"))) {
      const key = `${dir}/${skip.file} — ${skip.reason}`;
      skips.set(key, (skips.get(key) ?? 0) + 1);
    }
  }
}
if (skips.size) {
  console.log("skipped:");
  for (const [key, count] of [...skips].sort()) {
    console.log(`  ${key}${count > 1 ? ` (${count} tests)` : ""}`);
  }
}
if (failures.length) {
  console.log("failed:");
  for (const failure of failures) console.log(`  ${failure}`);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || failures.length > 0 || passed === 0 ? 1 : 0;
