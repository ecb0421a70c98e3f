import { readdir, readFile } from "node:fs/promises";
import { envName, isEngramError, resolveProviderSettings } from "@engram/core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiProvider } from "../src/index.js";
import { API_KEY, embeddingFailure, expectedVector, expectVector } from "./helpers.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "./openai-wire-server.js";

describe("openaiProvider.check (no network)", () => {
  it("is ok with an API key", () => {
    expect(openaiProvider.check({ apiKey: API_KEY })).toEqual({ ok: true });
  });

  it("is not ok without a key for api.openai.com", () => {
    expect(openaiProvider.check({})).toEqual({ ok: false, reason: "no OPENAI_API_KEY" });
    expect(openaiProvider.check({ baseUrl: "https://api.openai.com/v1", apiKey: "  " })).toEqual({
      ok: false,
      reason: "no OPENAI_API_KEY",
    });
  });

  it("is ok without a key for a local OpenAI-compatible server", () => {
    expect(openaiProvider.check({ baseUrl: "http://localhost:11434/v1" })).toEqual({ ok: true });
  });

  it("explains a base URL that is not a URL", () => {
    const check = openaiProvider.check({ baseUrl: "localhost:11434" });
    expect(check).toMatchObject({ ok: false });
    expect(check).toHaveProperty("reason", expect.stringContaining("http(s) URL"));
  });
});

describe("settings", () => {
  it("declares every setting with a description, the key as a secret", () => {
    const settings = openaiProvider.settings;
    expect(Object.keys(settings).sort()).toEqual(
      [
        "apiKey",
        "baseUrl",
        "model",
        "dimensions",
        "dims",
        "headers",
        "organization",
        "project",
        "timeoutMs",
        "maxBatchSize",
        "maxTokensPerRequest",
        "concurrency",
        "batch",
        "batchMinTexts",
        "batchPollIntervalMs",
        "batchTimeoutMs",
        "batchConcurrency",
        "batchWait",
      ].sort(),
    );
    for (const spec of Object.values(settings)) expect(spec.description.length).toBeGreaterThan(10);
    expect(settings.apiKey).toMatchObject({ secret: true, env: ["OPENAI_API_KEY"] });
    expect(settings.baseUrl).toMatchObject({ env: ["OPENAI_BASE_URL"] });
    expect(envName("openai", "baseUrl")).toBe("ENGRAM_OPENAI_BASE_URL");
  });

  it("resolve from ENGRAM_OPENAI_* over the config over OPENAI_* conventional variables", () => {
    const settings = resolveProviderSettings(
      openaiProvider,
      { model: "text-embedding-3-large", dimensions: 1024, baseUrl: "http://config/v1" },
      {
        ENGRAM_OPENAI_BASE_URL: "http://localhost:11434/v1",
        OPENAI_BASE_URL: "http://conventional/v1",
        OPENAI_API_KEY: API_KEY,
        ENGRAM_OPENAI_DIMENSIONS: "512",
        ENGRAM_OPENAI_BATCH: "true",
        ENGRAM_OPENAI_BATCH_MIN_TEXTS: "2000",
        ENGRAM_OPENAI_HEADERS: '{"X-Proxy-Token":"abc"}',
        OPENAI_ORG_ID: "org-env",
      },
    );
    expect(settings).toEqual({
      apiKey: API_KEY,
      baseUrl: "http://localhost:11434/v1",
      model: "text-embedding-3-large",
      dimensions: 512,
      batch: true,
      batchMinTexts: 2000,
      headers: { "X-Proxy-Token": "abc" },
      organization: "org-env",
    });
  });
});

describe("openaiProvider.create", () => {
  let server: OpenAIWireServer;
  beforeEach(async () => {
    server = await startOpenAIWireServer({ apiKey: API_KEY });
  });
  afterEach(() => server.close());

  it("creates a working embedder from resolved settings", async () => {
    const settings = resolveProviderSettings(
      openaiProvider,
      { dimensions: 64 },
      { ENGRAM_OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: API_KEY },
    );
    const embedder = await openaiProvider.create(settings);
    expect(embedder).toMatchObject({ id: "openai", dims: 64, endpoint: server.baseUrl });
    expectVector(await embedder.embedQuery("hello"), expectedVector("hello", 64));
    expect(server.count("POST /embeddings")).toBe(1);
  });

  it("refuses api.openai.com without a key (auth) before any request", async () => {
    const error = await embeddingFailure(() => openaiProvider.create({}));
    expect(error.kind).toBe("auth");
    expect(error.hint).toContain("OPENAI_API_KEY");
  });

  it.each([
    [{ timeoutMs: -5 }, /timeoutMs must be a positive whole number/],
    [{ maxBatchSize: 1.5 }, /maxBatchSize must be a positive whole number/],
    [{ headers: ["X-A"] }, /headers must be a JSON object/],
    [{ headers: { "X-A": 1 } }, /value of X-A must be a string/],
    [{ model: "text-embedding-ada-002", dimensions: 256 }, /does not support dimensions/],
    [{ model: "text-embedding-3-small", dimensions: 4096 }, /at most 1536 dimensions/],
    [{ dims: 768 }, /dims is 768 but text-embedding-3-small returns 1536/],
    [{ baseUrl: "http://user:pw@proxy.local/v1" }, /must not contain credentials/],
    [{ batch: "yes" }, /batch must be true or false/],
  ])("rejects invalid settings %j", async (settings, message) => {
    const error = await openaiProvider
      .create({ apiKey: API_KEY, baseUrl: server.baseUrl, ...settings })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isEngramError(error, "CONFIG_INVALID")).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain("pw@");
    expect(server.requests).toHaveLength(0);
  });
});

describe("loading the descriptor is cheap", () => {
  it("no source file imports the openai SDK eagerly (only `import type` or await import)", async () => {
    const dir = new URL("../src/", import.meta.url);
    const files = (await readdir(dir)).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = await readFile(new URL(file, dir), "utf8");
      const eager = [...source.matchAll(/^import\s+(?!type\b)[^;]*from\s+"openai[^"]*";/gm)];
      expect(eager.map((m) => `${file}: ${m[0]}`)).toEqual([]);
    }
  });
});
