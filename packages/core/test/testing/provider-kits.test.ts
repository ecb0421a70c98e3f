// The provider kits run against in-process providers that keep the contracts (kit-subjects.ts):
// every check passes, the failure hooks included. provider-kits-catch.test.ts proves they fail.
import { describeEmbedderConformance } from "../../src/testing/embedder-conformance.js";
import { createHashingEmbedder } from "../../src/testing/hashing-embedder.js";
import { describeLanguageModelConformance } from "../../src/testing/language-model-conformance.js";
import { describeRerankerConformance } from "../../src/testing/reranker-conformance.js";
import { Backend, kitEmbedder, kitLanguageModel, kitReranker } from "./kit-subjects.js";

const EMBEDDER_FAILURES = [
  "rate_limit",
  "auth",
  "server",
  "malformed",
  "nan_vector",
  "slow",
] as const;

describeEmbedderConformance("hashing embedder (no hooks)", async () => ({
  embedder: createHashingEmbedder({ dims: 64 }),
}));

describeEmbedderConformance("kit embedder", async () => {
  const backend = new Backend();
  return {
    embedder: kitEmbedder(backend),
    ...backend.hooks(EMBEDDER_FAILURES),
    shortTimeout: async () => kitEmbedder(backend, 50),
  };
});

describeRerankerConformance("kit reranker", async () => {
  const backend = new Backend();
  return {
    reranker: kitReranker(backend),
    ...backend.hooks(["rate_limit", "auth", "server", "malformed", "nan_score", "slow"] as const),
  };
});

describeLanguageModelConformance("kit language model", async () => {
  const backend = new Backend();
  return {
    model: kitLanguageModel(backend),
    ...backend.hooks([
      "rate_limit",
      "auth",
      "server",
      "malformed",
      "not_json",
      "schema_violation",
      "slow",
    ] as const),
    shortTimeout: async () => kitLanguageModel(backend, 50),
  };
});
