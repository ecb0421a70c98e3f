// The LanguageModel contract's checks live in the kit (@engram/core/testing): this file runs them
// on node-llama-cpp with a tiny llama chat model the test generates (random weights: what it says
// means nothing, but its chat template, the token cap and the JSON-Schema grammar are real),
// loaded once.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeLanguageModelConformance } from "@engram/core/testing";
import { localLanguageModel } from "../src/index.js";
import { writeTinyLlamaGguf } from "./fixtures/tiny-llama-gguf.js";

describeLanguageModelConformance("local, tiny generated llama", async () => {
  const dir = await mkdtemp(join(tmpdir(), "engram-local-chat-conformance-"));
  return {
    model: await localLanguageModel({
      modelPath: await writeTinyLlamaGguf(dir),
      gpu: "cpu",
      threads: 1,
    }),
    close: () => rm(dir, { recursive: true, force: true }),
  };
});
