// Qdrant must rank like SQLite on the same chunks, when QDRANT_URL is set. The assertions live in
// the parity kit (`describeStoreParity`, @engram/core/testing): this file only runs it.
import { join } from "node:path";
import { describeStoreParity } from "@engram/core/testing";
import { createSqliteStore } from "@engram/store-sqlite";
import { describe, it } from "vitest";
import { QDRANT_URL, useCollections, warnSkipped } from "./helpers.js";

warnSkipped("parity with SQLite");

if (QDRANT_URL) {
  const collections = useCollections();
  /**
   * Tolerance: the kit's default for full text (the same best hit, top 10s sharing ≥ 8 ids): Qdrant
   * applies a Lucene-style IDF to the sparse vectors and the chunk-length part of BM25 uses a fixed
   * average length, while FTS5 floors common terms at ~0 and uses the true average. Vectors are
   * exact on both sides (`exactVectorSearch`), so they agree to 1e-5.
   */
  describeStoreParity("qdrant vs sqlite", {
    reference: async (dir) => createSqliteStore({ path: join(dir, "index.sqlite") }),
    candidate: async (dir) => collections.store(dir, { exactVectorSearch: true }),
  });
} else {
  describe.skip("store parity: qdrant vs sqlite — SKIPPED: set QDRANT_URL to run", () => {
    it("needs a Qdrant server", () => {});
  });
}
