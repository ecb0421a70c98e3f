// The assertions live in the conformance kit (@engram/core/testing): this file only runs it.
import { join } from "node:path";
import { describeStoreConformance } from "@engram/core/testing";
import { createSqliteStore } from "../src/index.js";

// Vectors searched from the in-memory copy from the first search on.
describeStoreConformance("sqlite", {
  create: async (dir) =>
    createSqliteStore({ path: join(dir, "index.sqlite"), vectorMemoryAfterSearches: 0 }),
  reopen: async (dir) =>
    createSqliteStore({ path: join(dir, "index.sqlite"), vectorMemoryAfterSearches: 0 }),
});

// Vectors scanned by sqlite-vec on disk (what an index too large for `vectorMemoryMb` gets).
describeStoreConformance("sqlite (sqlite-vec scan)", {
  create: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite"), vectorMemoryMb: 0 }),
  reopen: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite"), vectorMemoryMb: 0 }),
});

describeStoreConformance("sqlite (keyword-only)", {
  create: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite"), vectors: false }),
  reopen: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite"), vectors: false }),
});

describeStoreConformance("sqlite (in memory)", {
  create: async () => createSqliteStore({ path: ":memory:", vectorMemoryAfterSearches: 0 }),
});
