// The assertions live in the parity kit (`describeStoreParity`, @engram/core/testing): this file
// only runs it.
import { join } from "node:path";
import { describeStoreParity } from "@engram/core/testing";
import { createSqliteStore } from "@engram/store-sqlite";
import { createInMemoryStore } from "../src/index.js";

/**
 * The in-memory store must answer like SQLite on the same chunks, within the kit's default
 * tolerance: wink's BM25 and FTS5 differ in IDF (FTS5 floors common terms at ~0), which moves
 * chunks near the cut-off; vectors are exact cosine on both sides.
 */
describeStoreParity("memory vs sqlite", {
  reference: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
  candidate: async () => createInMemoryStore(),
});
