// The assertions live in the conformance kit (@engram/core/testing): this file only runs it.
import { join } from "node:path";
import { describeStoreConformance } from "@engram/core/testing";
import { createInMemoryStore } from "../src/index.js";

// Purely in memory: nothing survives close(), so there is no reopen() and the kit skips (and
// says so) its persistence section.
describeStoreConformance("memory", {
  create: async () => createInMemoryStore(),
});

// With a snapshot file: reopening loads what close() saved, so the persistence section runs.
describeStoreConformance("memory (snapshot)", {
  create: async (dir) => createInMemoryStore({ snapshotPath: join(dir, "snapshot.jsonl") }),
  reopen: async (dir) => createInMemoryStore({ snapshotPath: join(dir, "snapshot.jsonl") }),
});
