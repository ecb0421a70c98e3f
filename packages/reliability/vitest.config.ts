import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { workspaceAliases } from "../../vitest.shared.js";

/**
 * The reliability suite: real processes (the built CLI and library writers), real SQLite, real
 * SIGKILL, a local server in OpenAI's wire format. Files run one after another (they spawn
 * processes of their own: on 2 cores, running them side by side only measures contention).
 * `test/support/global-setup.ts` chooses and prints the seed, and prints the figures at the end.
 */
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  resolve: { alias: workspaceAliases },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 60_000,
    reporters: ["default", ["json", { outputFile: "results/vitest.json" }]],
  },
});
