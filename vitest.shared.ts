import { fileURLToPath } from "node:url";

const core = (p: string) => fileURLToPath(new URL(`./packages/core/src/${p}`, import.meta.url));

/**
 * Tests import sibling packages from source, so `vitest` works without a build. Child-process
 * tests (locks, kill -9, watch) run the built `dist/` instead: turbo builds before `test`.
 */
export const workspaceAliases = {
  "@engram/core/testing": core("testing/index.ts"),
  "@engram/core": core("index.ts"),
  "@engram/store-sqlite": fileURLToPath(
    new URL("./packages/store-sqlite/src/index.ts", import.meta.url),
  ),
};
