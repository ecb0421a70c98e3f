import { describe, expect, it } from "vitest";
import {
  type EmbeddingProvider,
  envName,
  redactSettings,
  resolveProviderSettings,
} from "../../src/embedding/provider.js";

const provider: EmbeddingProvider = {
  id: "openai",
  settings: {
    apiKey: { type: "string", env: ["OPENAI_API_KEY"], secret: true, description: "key" },
    baseUrl: { type: "string", env: ["OPENAI_BASE_URL"], description: "url" },
    model: { type: "string", description: "model" },
    dimensions: { type: "number", description: "dims" },
    batch: { type: "boolean", description: "batch" },
    headers: { type: "json", description: "headers" },
  },
  check: () => ({ ok: true }),
  create: async () => {
    throw new Error("not used");
  },
};

describe("envName", () => {
  it("derives ENGRAM_<PROVIDER>_<SETTING>", () => {
    expect(envName("openai", "baseUrl")).toBe("ENGRAM_OPENAI_BASE_URL");
    expect(envName("local", "modelPath")).toBe("ENGRAM_LOCAL_MODEL_PATH");
    expect(envName("my-provider", "apiKey")).toBe("ENGRAM_MY_PROVIDER_API_KEY");
  });
});

describe("resolveProviderSettings", () => {
  it("takes ENGRAM_ variables over the config, and the config over conventional variables", () => {
    const env = {
      OPENAI_API_KEY: "sk-conventional",
      OPENAI_BASE_URL: "https://conventional/v1",
      ENGRAM_OPENAI_BASE_URL: "http://localhost:11434/v1",
    };
    const settings = resolveProviderSettings(provider, { baseUrl: "https://config/v1" }, env);
    expect(settings).toEqual({
      apiKey: "sk-conventional",
      baseUrl: "http://localhost:11434/v1",
    });
    expect(resolveProviderSettings(provider, { apiKey: "sk-config" }, env).apiKey).toBe(
      "sk-config",
    );
  });

  it("parses typed variables and reports bad ones", () => {
    const env = {
      ENGRAM_OPENAI_DIMENSIONS: "256",
      ENGRAM_OPENAI_BATCH: "yes",
      ENGRAM_OPENAI_HEADERS: '{"x-team":"a"}',
    };
    expect(resolveProviderSettings(provider, {}, env)).toEqual({
      dimensions: 256,
      batch: true,
      headers: { "x-team": "a" },
    });
    expect(() =>
      resolveProviderSettings(provider, {}, { ENGRAM_OPENAI_DIMENSIONS: "many" }),
    ).toThrow(/ENGRAM_OPENAI_DIMENSIONS must be a number/);
    expect(() => resolveProviderSettings(provider, { dimensions: "256" }, {})).toThrow(
      /embedding.providers.openai.dimensions must be a number/,
    );
  });

  it("refuses unknown settings and names the known ones", () => {
    expect(() => resolveProviderSettings(provider, { apikey: "x" }, {})).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", hint: expect.stringContaining("apiKey") }),
    );
  });

  it("ignores empty variables and masks secrets for display", () => {
    const settings = resolveProviderSettings(
      provider,
      {},
      { OPENAI_API_KEY: " ", ENGRAM_OPENAI_API_KEY: "" },
    );
    expect(settings.apiKey).toBeUndefined();
    expect(redactSettings(provider, { apiKey: "sk-1", model: "m" })).toEqual({
      apiKey: "***",
      model: "m",
    });
  });
});
