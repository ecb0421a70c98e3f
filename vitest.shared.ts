import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { SkipReasonsReporter } from "./scripts/skip-reasons-reporter.js";

const core = (p: string) => fileURLToPath(new URL(`./packages/core/src/${p}`, import.meta.url));
const pkg = (name: string) =>
  fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

/**
 * Tests import sibling packages from source, so `vitest` works without a build. Child-process
 * tests (locks, kill -9, watch) run the built `dist/` instead: turbo builds before `test`.
 */
export const workspaceAliases = {
  "@engram/core/testing": core("testing/index.ts"),
  "@engram/core/driver": core("driver/index.ts"),
  "@engram/core/internal": core("internal/index.ts"),
  "@engram/core": core("index.ts"),
  "@engram/store-sqlite": pkg("store-sqlite"),
  "@engram/embed-openai": pkg("embed-openai"),
  "@engram/embed-gemini": pkg("embed-gemini"),
  "@engram/embed-local": pkg("embed-local"),
  "@engram/store-memory": pkg("store-memory"),
  "@engram/store-lancedb": pkg("store-lancedb"),
  "@engram/store-qdrant": pkg("store-qdrant"),
  "@engram/cli": pkg("cli"),
  "@engram/rerank-http": pkg("rerank-http"),
  "@engram/ui": pkg("ui"),
};

/**
 * `npm run test:scale` (scripts/run-tests.mjs --scale) sets this: the heavyweight tests, in files
 * named `*.scale.test.ts`, run then instead of the others. CI runs both.
 */
const scale = process.env.ENGRAM_TEST_SCALE === "1";
/** The report's name: `ENGRAM_TEST_REPORT` when set (`vitest-node-<major>`: a run under another Node). */
const report = process.env.ENGRAM_TEST_REPORT ?? (scale ? "vitest-scale" : "vitest");
const results = `test-results/${report}`;

/** The vitest config every package uses (`export { packageConfig as default }`). */
export const packageConfig = defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: scale ? ["test/**/*.scale.test.ts"] : ["test/**/*.test.ts"],
    exclude: scale
      ? configDefaults.exclude
      : [...configDefaults.exclude, "test/**/*.scale.test.ts"],
    passWithNoTests: scale,
    // A guard against hangs, not a speed limit: with several files at once on a busy 2-core
    // machine, an e2e test that embeds with a real GGUF model took 30 s.
    testTimeout: 60_000,
    // Most test time is spent waiting: on child processes (the CLI, lock holders, killed syncs),
    // on debounce timers and on the file system. Vitest's default (one worker per core but one)
    // is a single worker on a 2-core machine, so those waits ran one file after another. Files
    // share no state (each makes its own temp folders; servers listen on port 0).
    maxWorkers: Math.min(4, 2 * availableParallelism()),
    hookTimeout: 60_000,
    // The JSON reports feed the summary `npm test` ends with (scripts/test-summary.mjs): totals,
    // failures, and every skipped test with its reason.
    reporters: [
      "default",
      ["json", { outputFile: `${results}.json` }],
      new SkipReasonsReporter(`${results}-skipped.json`),
    ],
  },
});
