// The assertions live in the conformance kit (@engram/core/testing): this file only runs it, against
// a real Qdrant when QDRANT_URL is set. Each test's temp dir maps to a collection of its own.
import { describeStoreConformance } from "@engram/core/testing";
import { describe } from "vitest";
import { QDRANT_URL, useCollections, warnSkipped } from "./helpers.js";

warnSkipped("conformance kit");

if (QDRANT_URL) {
  const collections = useCollections();
  describeStoreConformance("qdrant", {
    create: async (dir) => collections.store(dir),
    reopen: async (dir) => collections.store(dir),
  });
} else {
  describe.skip("MemoryStore conformance: qdrant — SKIPPED: set QDRANT_URL to run", () => {
    describeStoreConformance("qdrant", {
      create: async () => Promise.reject(new Error("no server")),
    });
  });
}
