// The assertions live in the conformance kit (@engram/core/testing): this file only runs it.
import { join } from "node:path";
import { withMemoryIndex } from "@engram/core/driver";
import { describeStoreConformance } from "@engram/core/testing";
import { createSqliteStore } from "../src/index.js";

describeStoreConformance("sqlite", {
  create: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
  reopen: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
});

// core's in-memory index in front (what engram watch, mcp and ui run): loaded on the first search.
describeStoreConformance("sqlite + withMemoryIndex", {
  create: async (dir) => withMemoryIndex(createSqliteStore({ path: join(dir, "index.sqlite") })),
  reopen: async (dir) => withMemoryIndex(createSqliteStore({ path: join(dir, "index.sqlite") })),
});

describeStoreConformance("sqlite (keyword-only)", {
  create: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite"), vectors: false }),
  reopen: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite"), vectors: false }),
});

describeStoreConformance("sqlite (in memory)", {
  create: async () => createSqliteStore({ path: ":memory:" }),
});
