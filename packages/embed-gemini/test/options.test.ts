import { isEmbeddingError, isEngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import {
  type GeminiEmbedderOptions,
  resolveGeminiOptions,
  withConventionalEnv,
} from "../src/options.js";

const resolve = (options: GeminiEmbedderOptions) =>
  resolveGeminiOptions({ apiKey: "k", ...options });

function configError(options: GeminiEmbedderOptions): { message: string; hint?: string } {
  try {
    resolve(options);
  } catch (error) {
    if (isEngramError(error, "CONFIG_INVALID"))
      return { message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
    throw error;
  }
  throw new Error("expected CONFIG_INVALID");
}

describe("defaults", () => {
  it("fills every default", () => {
    expect(resolve({})).toEqual({
      apiKey: "k",
      baseUrl: "https://generativelanguage.googleapis.com",
      model: "gemini-embedding-001",
      dims: 3072,
      outputDimensionality: undefined,
      taskType: "RETRIEVAL_DOCUMENT",
      queryTaskType: "RETRIEVAL_QUERY",
      headers: {},
      timeoutMs: 60_000,
      maxBatchSize: 100,
      maxTokensPerRequest: 204_800,
      concurrency: 2,
    });
  });
});

describe("vector size", () => {
  it("is outputDimensionality when set, the known size otherwise", () => {
    expect(resolve({ outputDimensionality: 1536 }).dims).toBe(1536);
    expect(resolve({ model: "text-embedding-004" }).dims).toBe(768);
    expect(resolve({ model: "gemini-embedding-001", dims: 3072 }).dims).toBe(3072);
  });

  it("needs dims for a model engram does not know", () => {
    expect(resolve({ model: "gemini-embedding-2", dims: 1024 }).dims).toBe(1024);
    expect(configError({ model: "gemini-embedding-2" })).toEqual({
      message:
        "embedding.providers.gemini.dims is needed: engram does not know the vector size of gemini-embedding-2",
      hint: "set dims to the size gemini-embedding-2 answers",
    });
  });

  it("refuses dims that contradict the model, pointing at outputDimensionality", () => {
    expect(configError({ dims: 768 }).hint).toBe(
      "set outputDimensionality: 768 to get shorter vectors, or drop dims",
    );
    expect(configError({ dims: 512, outputDimensionality: 768 }).message).toMatch(
      /dims is 512 but outputDimensionality is 768/,
    );
  });

  it("keeps outputDimensionality within the model's range", () => {
    expect(configError({ outputDimensionality: 64 }).message).toMatch(/between 128 and 3072/);
    expect(
      configError({ model: "text-embedding-004", outputDimensionality: 1024 }).message,
    ).toMatch(/between 1 and 768 for text-embedding-004/);
    expect(resolve({ outputDimensionality: 128 }).dims).toBe(128);
    expect(configError({ outputDimensionality: 768.5 }).message).toMatch(/positive whole number/);
  });
});

describe("checks", () => {
  it("needs an API key (auth), and never a Live API ephemeral token", () => {
    const error = (() => {
      try {
        resolveGeminiOptions({});
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(isEmbeddingError(error) && error.kind).toBe("auth");
    expect(configError({ apiKey: "auth_tokens/abc" }).message).toMatch(/ephemeral token/);
  });

  it("normalises the base URL and refuses one that would carry a secret", () => {
    expect(resolve({ baseUrl: "https://proxy.example/gemini/" }).baseUrl).toBe(
      "https://proxy.example/gemini",
    );
    expect(configError({ baseUrl: "https://proxy.example/?key=AIza-secret" }).message).toMatch(
      /must not hold credentials, a query string or a fragment/,
    );
    expect(configError({ baseUrl: "https://user:pw@proxy.example" }).message).not.toContain("pw");
    expect(configError({ baseUrl: "ftp://x" }).message).toMatch(/must be http\(s\)/);
    expect(configError({ baseUrl: "not a url" }).message).toMatch(/is not a URL/);
  });

  it("keeps maxBatchSize within batchEmbedContents' 100", () => {
    expect(resolve({ maxBatchSize: 40 }).maxBatchSize).toBe(40);
    expect(configError({ maxBatchSize: 250 }).message).toMatch(/at most 100/);
    expect(configError({ concurrency: 0 }).message).toMatch(
      /concurrency must be a positive whole number/,
    );
  });

  it("wants headers as an object of strings", () => {
    expect(resolve({ headers: { "x-a": "1" } }).headers).toEqual({ "x-a": "1" });
    expect(configError({ headers: ["x"] as never }).message).toMatch(/headers must be an object/);
    expect(configError({ headers: { "x-a": 1 } as never }).message).toMatch(
      /headers.x-a must be a string/,
    );
  });

  it("refuses a model name the SDK would put into the URL unsafely", () => {
    expect(configError({ model: "../files" }).message).toMatch(/is not a model name/);
    expect(configError({ model: "gemini?x=1" }).message).toMatch(/is not a model name/);
  });
});

describe("conventional variables for the factory", () => {
  it("takes GEMINI_API_KEY, then GOOGLE_API_KEY, and GOOGLE_GEMINI_BASE_URL, when options leave them unset", () => {
    expect(withConventionalEnv({}, { GEMINI_API_KEY: "g", GOOGLE_API_KEY: "o" }).apiKey).toBe("g");
    expect(withConventionalEnv({}, { GEMINI_API_KEY: " ", GOOGLE_API_KEY: "o" }).apiKey).toBe("o");
    expect(withConventionalEnv({ apiKey: "mine" }, { GEMINI_API_KEY: "g" }).apiKey).toBe("mine");
    expect(withConventionalEnv({}, { GOOGLE_GEMINI_BASE_URL: "http://p" }).baseUrl).toBe(
      "http://p",
    );
    expect(withConventionalEnv({}, {})).toEqual({});
  });
});
