import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

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

/** The vitest config every package uses (`export { packageConfig as default }`). */
export const packageConfig = defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report feeds the one-line total that `npm test` ends with (scripts/test-summary.mjs).
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
  },
});
