// The assertions live in the conformance kit (@engram/core/testing): this file only runs it.
import { join } from "node:path";
import { describeStoreConformance } from "@engram/core/testing";
import { createLanceDbStore } from "../src/index.js";

describeStoreConformance("lancedb", {
  create: async (dir) => createLanceDbStore({ uri: join(dir, "lancedb") }),
  reopen: async (dir) => createLanceDbStore({ uri: join(dir, "lancedb") }),
});

let memories = 0;
describeStoreConformance("lancedb (memory://)", {
  create: async () => createLanceDbStore({ uri: `memory://conformance-${++memories}` }),
});
