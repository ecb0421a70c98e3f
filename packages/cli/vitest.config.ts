import { defineConfig } from "vitest/config";
import { workspaceAliases } from "../../vitest.shared.js";

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The JSON report feeds the one-line total that `npm test` ends with (scripts/test-summary.mjs).
    reporters: ["default", ["json", { outputFile: "test-results/vitest.json" }]],
  },
});
