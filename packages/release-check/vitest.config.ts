import { defineConfig, mergeConfig } from "vitest/config";
import { packageConfig } from "../../vitest.shared.js";

export default mergeConfig(
  packageConfig,
  defineConfig({
    test: {
      globalSetup: ["test/pack.setup.ts"],
      // Installing the packed CLI resolves its dependencies from the registry (and compiles
      // better-sqlite3 where the pnpm store holds no build of it).
      testTimeout: 600_000,
      hookTimeout: 600_000,
    },
  }),
);
