// The Embedder contract's checks live in the kit (@engram/core/testing): this file runs them on
// node-llama-cpp with a tiny BERT the test generates (random weights: vectors without meaning,
// but real tokenisation, pooling and normalisation), loaded once. No wire, so no failure hooks.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeEmbedderConformance } from "@engram/core/testing";
import { describe } from "vitest";
import { localEmbedder } from "../src/index.js";
import { writeTinyBertGguf } from "./fixtures/tiny-bert-gguf.js";

describeEmbedderConformance("local, tiny generated BERT", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-local-conformance-"));
  return {
    embedder: await localEmbedder({
      modelPath: await writeTinyBertGguf(dir),
      gpu: "cpu",
      threads: 1, // see helpers.ts
    }),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});

// A real embedding model adds the semantic checks.
const realModel = process.env.ENGRAM_TEST_GGUF;
describe.skipIf(!realModel)(
  `a real GGUF embedding model${realModel ? "" : " — SKIPPED: ENGRAM_TEST_GGUF is not set"}`,
  () => {
    describeEmbedderConformance(
      "local (ENGRAM_TEST_GGUF)",
      async () => ({ embedder: await localEmbedder({ modelPath: realModel as string }) }),
      { semantic: true },
    );
  },
);
