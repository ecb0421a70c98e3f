// The assertions live in the conformance kit (@engram/core/testing): this file only runs it.
import { join } from "node:path";
import { describeStoreConformance } from "@engram/core/testing";
import { createSqliteStore } from "../src/index.js";

describeStoreConformance("sqlite", {
  create: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
  reopen: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
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
  create: async () => createSqliteStore({ path: ":memory:" }),
});
