// The assertions live in the conformance kit (@engram/core/testing): this file only runs it.
import { join } from "node:path";
import { withMemoryIndex } from "@engram/core/driver";
import { describeStoreConformance } from "@engram/core/testing";
import { createLanceDbStore } from "../src/index.js";

describeStoreConformance("lancedb", {
  create: async (dir) => createLanceDbStore({ uri: join(dir, "lancedb") }),
  reopen: async (dir) => createLanceDbStore({ uri: join(dir, "lancedb") }),
});

// core's in-memory index in front (what engram watch, mcp and ui run): loaded on the first search.
describeStoreConformance("lancedb + withMemoryIndex", {
  create: async (dir) => withMemoryIndex(createLanceDbStore({ uri: join(dir, "lancedb") })),
  reopen: async (dir) => withMemoryIndex(createLanceDbStore({ uri: join(dir, "lancedb") })),
});

let memories = 0;
describeStoreConformance("lancedb (memory://)", {
  create: async () => createLanceDbStore({ uri: `memory://conformance-${++memories}` }),
});
