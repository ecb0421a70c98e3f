import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { Reporter, TestCase, TestModule } from "vitest/node";

/** One skipped test and why, as `scripts/test-summary.mjs` lists them. */
export interface SkippedTest {
  file: string;
  test: string;
  reason: string;
}

/**
 * Why a test was skipped: the note of `ctx.skip(note)`, else the nearest suite or test name that
 * says it (`describe.skip("… — SKIPPED: set QDRANT_URL to run")`), else the skip's kind.
 */
function reasonOf(test: TestCase): string {
  const result = test.result();
  const note = result.state === "skipped" ? result.note : undefined;
  if (note) return note;
  const names: string[] = [test.name];
  for (let parent = test.parent; parent.type === "suite"; parent = parent.parent) {
    names.push(parent.name);
  }
  const said = names.find((name) => /\bskipped\b/i.test(name));
  if (said) return said.replace(/^.*?\bskipped\b\W*/i, "").replace(/\)$/, "");
  if (test.options.mode === "todo") return "todo";
  return `no reason given (in "${names[names.length - 1]}"; give one with ctx.skip(reason))`;
}

/**
 * Writes every skipped test with its reason to `outputFile` (JSON), beside vitest's own JSON
 * report, so the closing summary of `npm test` can say what did not run and why.
 */
export class SkipReasonsReporter implements Reporter {
  constructor(private readonly outputFile: string) {}

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped: SkippedTest[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        if (test.result().state !== "skipped") continue;
        skipped.push({
          file: relative(process.cwd(), module.moduleId),
          test: test.fullName,
          reason: reasonOf(test),
        });
      }
    }
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, `${JSON.stringify(skipped, null, 2)}\n`);
  }
}
