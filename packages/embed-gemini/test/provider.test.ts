import {
  EngramError,
  envName,
  isEmbeddingError,
  isEngramError,
  redactSettings,
  resolveProviderSettings,
} from "@engram/core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { geminiProvider } from "../src/index.js";
import {
  type GeminiWireServer,
  sentRequests,
  startGeminiWireServer,
} from "./gemini-wire-server.js";

describe("geminiProvider descriptor", () => {
  it("is the gemini provider and declares every setting with a description", () => {
    expect(geminiProvider.id).toBe("gemini");
    expect(Object.keys(geminiProvider.settings).sort()).toEqual(
      [
        "apiKey",
        "baseUrl",
        "concurrency",
        "dims",
        "headers",
        "maxBatchSize",
        "maxTokensPerRequest",
        "model",
        "outputDimensionality",
        "queryTaskType",
        "taskType",
        "timeoutMs",
      ].sort(),
    );
    for (const spec of Object.values(geminiProvider.settings)) {
      expect(spec.description.length).toBeGreaterThan(10);
    }
    expect(geminiProvider.settings.apiKey).toMatchObject({
      type: "string",
      secret: true,
      env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    });
    expect(geminiProvider.settings.headers?.type).toBe("json");
    expect(geminiProvider.settings.outputDimensionality?.type).toBe("number");
  });

  it("names its variables ENGRAM_GEMINI_*", () => {
    expect(envName("gemini", "apiKey")).toBe("ENGRAM_GEMINI_API_KEY");
    expect(envName("gemini", "outputDimensionality")).toBe("ENGRAM_GEMINI_OUTPUT_DIMENSIONALITY");
    expect(envName("gemini", "queryTaskType")).toBe("ENGRAM_GEMINI_QUERY_TASK_TYPE");
  });

  it("check() is ok with a key and says what is missing without one", () => {
    expect(geminiProvider.check({ apiKey: "AIza-x" })).toEqual({ ok: true });
    expect(geminiProvider.check({})).toEqual({
      ok: false,
      reason: "no GEMINI_API_KEY or GOOGLE_API_KEY",
    });
    expect(geminiProvider.check({ apiKey: "  " })).toMatchObject({ ok: false });
  });

  it("masks the key in status output", () => {
    const shown = redactSettings(geminiProvider, { apiKey: "AIza-secret", model: "m" });
    expect(shown).toEqual({ apiKey: "***", model: "m" });
  });
});

describe("settings resolve through core", () => {
  const resolve = (configured: Record<string, unknown>, env: Record<string, string>) =>
    resolveProviderSettings(geminiProvider, configured, env);

  it("reads the key from GEMINI_API_KEY before GOOGLE_API_KEY", () => {
    expect(resolve({}, { GEMINI_API_KEY: "g", GOOGLE_API_KEY: "o" }).apiKey).toBe("g");
    expect(resolve({}, { GOOGLE_API_KEY: "o" }).apiKey).toBe("o");
    expect(resolve({}, {}).apiKey).toBeUndefined();
  });

  it("lets ENGRAM_GEMINI_* win over config, and config over conventional variables", () => {
    const env = {
      ENGRAM_GEMINI_API_KEY: "engram-key",
      GEMINI_API_KEY: "conventional",
      ENGRAM_GEMINI_OUTPUT_DIMENSIONALITY: "768",
      ENGRAM_GEMINI_HEADERS: '{"x-proxy-token":"t"}',
      ENGRAM_GEMINI_MODEL: "text-embedding-004",
    };
    const settings = resolve({ model: "gemini-embedding-001", timeoutMs: 5000 }, env);
    expect(settings).toMatchObject({
      apiKey: "engram-key",
      outputDimensionality: 768,
      headers: { "x-proxy-token": "t" },
      model: "text-embedding-004",
      timeoutMs: 5000,
    });
    expect(resolve({ apiKey: "from-config" }, { GEMINI_API_KEY: "conventional" }).apiKey).toBe(
      "from-config",
    );
  });

  it("reads the SDK's GOOGLE_GEMINI_BASE_URL as the base URL", () => {
    expect(resolve({}, { GOOGLE_GEMINI_BASE_URL: "http://proxy:8080" }).baseUrl).toBe(
      "http://proxy:8080",
    );
  });

  it("refuses unknown settings and wrong types", () => {
    expect(() => resolve({ apiKeyy: "x" }, {})).toThrow(EngramError);
    expect(() => resolve({}, { ENGRAM_GEMINI_TIMEOUT_MS: "soon" })).toThrow(/must be a number/);
  });
});

describe("create()", () => {
  let server: GeminiWireServer;
  beforeEach(async () => {
    server = await startGeminiWireServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it("builds a working embedder from settings resolved out of the environment", async () => {
    const settings = resolveProviderSettings(
      geminiProvider,
      { taskType: "CLUSTERING" },
      {
        ENGRAM_GEMINI_BASE_URL: server.url,
        GOOGLE_API_KEY: server.apiKey,
        ENGRAM_GEMINI_OUTPUT_DIMENSIONALITY: "256",
        ENGRAM_GEMINI_CONCURRENCY: "3",
      },
    );
    const embedder = await geminiProvider.create(settings);
    expect([embedder.id, embedder.model, embedder.dims]).toEqual([
      "gemini",
      "gemini-embedding-001",
      256,
    ]);
    expect(embedder.endpoint).toBe(server.url);
    expect(embedder.maxConcurrency).toBe(3);
    const [vector] = await embedder.embedBatch(["from settings"]);
    expect(vector).toHaveLength(256);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers["x-goog-api-key"]).toBe(server.apiKey);
    const [sent] = sentRequests(server.requests[0]);
    expect(sent).toMatchObject({ taskType: "CLUSTERING", outputDimensionality: 256 });
  });

  it("without a key fails with auth and does not fall back to process.env", async () => {
    const error = await geminiProvider.create({}).catch((thrown: unknown) => thrown);
    expect(isEmbeddingError(error) && error.kind).toBe("auth");
    expect((error as Error).message).toBe("gemini: no API key");
  });

  it("reports a config mistake as CONFIG_INVALID naming the setting", async () => {
    const error = await geminiProvider
      .create({ apiKey: "k", outputDimensionality: 5000 })
      .catch((thrown: unknown) => thrown);
    expect(isEngramError(error, "CONFIG_INVALID")).toBe(true);
    expect((error as Error).message).toBe(
      "embedding.providers.gemini.outputDimensionality must be between 128 and 3072 for gemini-embedding-001, got 5000",
    );
  });
});
