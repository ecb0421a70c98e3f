// The assertions live in the parity kit (`describeStoreParity`, @engram/core/testing): this file
// only runs it.
import { join } from "node:path";
import { withMemoryIndex } from "@engram/core/driver";
import { describeStoreParity } from "@engram/core/testing";
import { createSqliteStore } from "@engram/store-sqlite";
import { createLanceDbStore } from "../src/index.js";

/**
 * LanceDB must answer like SQLite on the same chunks. The kit's default overlap applies: top 10s
 * sharing ≥ 8 ids (9 on average), because FTS5 floors the IDF of terms in half the chunks or more
 * at ~0 while LanceDB uses Lucene's `ln(1 + …)` and scores in float32; vectors agree to 1e-5
 * (sqlite-vec and LanceDB round float32 cosine differently). The same best hit for every English
 * query; for a Chinese one among SQLite's top 3, because LanceDB's BM25 cannot weigh single
 * characters so that they count by presence (`characterTerms: "frequency"`, see the README).
 */
describeStoreParity("lancedb vs sqlite", {
  reference: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
  candidate: async (dir) => createLanceDbStore({ uri: join(dir, "lancedb") }),
  text: { characterTerms: "frequency" },
});

/**
 * In a long-lived process (core's in-memory index in front of each store) both rank with core's
 * own BM25 and exact cosine: the same top 10s, Chinese included.
 */
describeStoreParity("lancedb vs sqlite, each with withMemoryIndex", {
  reference: async (dir) => withMemoryIndex(createSqliteStore({ path: join(dir, "index.sqlite") })),
  candidate: async (dir) => withMemoryIndex(createLanceDbStore({ uri: join(dir, "lancedb") })),
  text: { minOverlap: 10, meanOverlap: 1 },
});
