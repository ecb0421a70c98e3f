// Totals the vitest JSON reports of every package into one closing line, so a CI log says in
// one place how many tests ran: "engram tests: N passed, N failed, N skipped".
import { existsSync, readdirSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
const dirs = ["packages", "examples"].flatMap((root) =>
  existsSync(root) ? readdirSync(root).map((name) => `${root}/${name}`) : [],
);
for (const dir of dirs) {
  const file = `${dir}/test-results/vitest.json`;
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`engram tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
