// The provider kits' checks fail on providers that break the contracts, each for its own reason.
import { describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embedding/embedder.js";
import { EmbeddingError } from "../../src/embedding/errors.js";
import { ModelError } from "../../src/model/errors.js";
import type { LanguageModel } from "../../src/model/language-model.js";
import type { Reranker } from "../../src/model/reranker.js";
import { type EmbedderFailure, embedderChecks } from "../../src/testing/embedder-conformance.js";
import {
  type LanguageModelFailure,
  languageModelChecks,
} from "../../src/testing/language-model-conformance.js";
import { rerankerChecks } from "../../src/testing/reranker-conformance.js";
import { Backend, kitEmbedder, kitLanguageModel, kitReranker, SECRET } from "./kit-subjects.js";

const FAILURES: EmbedderFailure[] = ["rate_limit", "auth", "server", "malformed", "nan_vector"];

/** The kit embedder behind a new backend, with `change` applied, as a kit subject. */
function embedderSubject(
  change: (good: Embedder, backend: Backend) => Partial<Embedder> = () => ({}),
) {
  const backend = new Backend();
  const good = kitEmbedder(backend);
  return { embedder: { ...good, ...change(good, backend) }, ...backend.hooks(FAILURES) };
}

describe("the embedder kit catches", () => {
  it("a batch answered in another order", async () => {
    const subject = embedderSubject((good) => ({
      embedBatch: async (texts, signal) => (await good.embedBatch(texts, signal)).reverse(),
    }));
    await expect(embedderChecks.batchMatchesSingles(subject)).rejects.toThrow(
      /in a batch vs alone/,
    );
  });

  it("vectors that are not unit length, or not of dims", async () => {
    const scaled = embedderSubject((good) => ({
      embedBatch: async (texts) => (await good.embedBatch(texts)).map((v) => v.map((x) => x * 2)),
    }));
    await expect(embedderChecks.vectors(scaled)).rejects.toThrow(/L2 norm/);
    const wider = embedderSubject(() => ({ dims: 65 }));
    await expect(embedderChecks.vectors(wider)).rejects.toThrow(/length/);
  });

  it("one vector for every text", async () => {
    const constant = embedderSubject((good) => ({
      embedBatch: async (texts) => {
        const [v] = await good.embedBatch(["deploy"]);
        return texts.map(() => v as Float32Array);
      },
    }));
    await expect(embedderChecks.vectors(constant)).rejects.toThrow(/got one vector/);
  });

  it("an aborted signal that is ignored, or rejected with another error", async () => {
    const deaf = embedderSubject((good) => ({
      embedBatch: (texts) => good.embedBatch(texts),
      embedQuery: (text) => good.embedQuery(text),
    }));
    await expect(embedderChecks.abortedBeforeSending(deaf)).rejects.toThrow(
      /expected the call to fail/,
    );
    const wrapping = embedderSubject(() => ({
      embedBatch: async () => {
        throw new EmbeddingError("network", "kit", "aborted");
      },
    }));
    await expect(embedderChecks.abortedBeforeSending(wrapping)).rejects.toThrow(/signal's reason/);
  });

  it("a provider that retries on its own: two requests for one call", async () => {
    const retrying = embedderSubject((good) => ({
      embedBatch: (texts, signal) =>
        good.embedBatch(texts, signal).catch(() => good.embedBatch(texts, signal)),
    }));
    // The retry succeeds, so the call does not even fail.
    await expect(embedderChecks.failure(retrying, "server")).rejects.toThrow(
      /expected the call to fail/,
    );
  });

  it("a failure of the wrong kind, a final one called retryable, a secret in the error", async () => {
    const misread = embedderSubject((good) => ({
      embedBatch: (texts, signal) =>
        good.embedBatch(texts, signal).catch(() => {
          throw new EmbeddingError("server", "kit", "HTTP 429");
        }),
    }));
    await expect(embedderChecks.failure(misread, "rate_limit")).rejects.toThrow(
      /EMBEDDING_RATE_LIMIT/,
    );
    const leaky = embedderSubject((good) => ({
      embedBatch: (texts, signal) =>
        good.embedBatch(texts, signal).catch(() => {
          throw new EmbeddingError("auth", "kit", `key ${SECRET} refused`);
        }),
    }));
    await expect(embedderChecks.failure(leaky, "auth")).rejects.toThrow(/shows a secret/);
    const untyped = embedderSubject((good) => ({
      embedBatch: (texts, signal) =>
        good.embedBatch(texts, signal).catch(() => {
          throw new Error("HTTP 401");
        }),
    }));
    await expect(embedderChecks.failure(untyped, "auth")).rejects.toThrow(
      /expected a provider error/,
    );
  });

  it("an endpoint holding a key", () => {
    const subject = embedderSubject(() => ({
      endpoint: `https://api.example.com/v1?key=${SECRET}`,
    }));
    expect(() => embedderChecks.identity(subject)).toThrow(/endpoint shows a secret/);
  });
});

describe("the reranker kit catches", () => {
  const subject = (change: (good: Reranker) => Partial<Reranker>) => {
    const good = kitReranker(new Backend());
    return { reranker: { ...good, ...change(good) } };
  };

  it("scores that follow the place, not the document", async () => {
    const positional = subject((good) => ({
      rerank: async (query, documents) =>
        (await good.rerank(query, documents)).map((_, i) => 1 / (i + 1)),
    }));
    await expect(rerankerChecks.independent(positional)).rejects.toThrow(/reverse order/);
  });

  it("a score missing, or not a number", async () => {
    const short = subject((good) => ({
      rerank: async (query, documents) => (await good.rerank(query, documents)).slice(1),
    }));
    await expect(rerankerChecks.scores(short)).rejects.toThrow(/one score per document/);
    const nan = subject((good) => ({
      rerank: async (query, documents) =>
        (await good.rerank(query, documents)).map(() => Number.NaN),
    }));
    await expect(rerankerChecks.scores(nan)).rejects.toThrow(/score 0 is NaN/);
  });
});

describe("the language-model kit catches", () => {
  const subject = (change: (good: LanguageModel) => Partial<LanguageModel>) => {
    const backend = new Backend();
    const good = kitLanguageModel(backend);
    const hooks = backend.hooks<LanguageModelFailure>(["server", "schema_violation"]);
    return { model: { ...good, ...change(good) }, ...hooks };
  };

  it("a value that is not the answer's text, or does not match the schema", async () => {
    const invented = subject((good) => ({
      generate: async (request) => ({
        ...(await good.generate(request)),
        value: { keep: "yes" } as never,
      }),
    }));
    await expect(languageModelChecks.structured(invented)).rejects.toThrow(
      /value is the text, parsed/,
    );
  });

  it("cut-off JSON not marked cutOff", async () => {
    const unmarked = subject((good) => ({
      generate: ((request) =>
        good.generate(request).catch(() => {
          throw new ModelError("bad_response", "kit", "not JSON");
        })) as LanguageModel["generate"],
    }));
    await expect(languageModelChecks.cutOffStructured(unmarked)).rejects.toThrow(/cutOff/);
  });

  it("a language model failing with embedding codes", async () => {
    const mislabelled = subject((good) => ({
      generate: ((request) =>
        good.generate(request).catch(() => {
          throw new EmbeddingError("server", "kit", "HTTP 500");
        })) as LanguageModel["generate"],
    }));
    await expect(languageModelChecks.failure(mislabelled, "server")).rejects.toThrow(
      /MODEL_SERVER/,
    );
  });

  it("no usage", async () => {
    const silent = subject((good) => ({
      generate: async (request) => ({
        ...(await good.generate(request)),
        usage: undefined as never,
      }),
    }));
    await expect(languageModelChecks.text(silent)).rejects.toThrow(/usage/);
  });
});
