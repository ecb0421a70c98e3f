import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/load.js";
import type { EngramConfigInput } from "../../src/config/schema.js";
import {
  type LanguageModelProvider,
  type LanguageModelRegistry,
  selectLanguageModels,
} from "../../src/model/provider.js";
import { createScriptedLanguageModel } from "../../src/testing/scripted-language-model.js";

/** A provider whose check needs `needs`; its models report the settings they were made with. */
function testProvider(id: string, needs: string): LanguageModelProvider {
  return {
    id,
    settings: {
      [needs]: { type: "string", env: [`${id.toUpperCase()}_CONVENTIONAL`], description: needs },
      baseUrl: { type: "string", description: "base URL" },
      model: { type: "string", scoped: true, description: "chat model" },
    },
    check: (s) => (s[needs] ? { ok: true } : { ok: false, reason: `no ${needs}` }),
    create: async (s) =>
      createScriptedLanguageModel({
        id,
        model: String(s.model ?? `${id}-default`),
        ...(typeof s.baseUrl === "string" ? { endpoint: s.baseUrl } : {}),
        script: ["ok"],
      }),
  };
}

const registry: LanguageModelRegistry = {
  local: async () => testProvider("local", "modelPath"),
  openai: async () => testProvider("openai", "apiKey"),
  gemini: async () => testProvider("gemini", "apiKey"),
};
const llmOf = (input: EngramConfigInput["llm"] = {}) => resolveConfig({ llm: input }).llm;
const ids = (s: { models: Array<{ id: string; model: string }> }) =>
  s.models.map((m) => `${m.id}/${m.model}`);

describe("config llm", () => {
  it("defaults to no model, and takes fallback as one id or a list", () => {
    expect(llmOf()).toMatchObject({ provider: "none", fallback: [], providers: {} });
    expect(llmOf({ fallback: "local" }).fallback).toEqual(["local"]);
    expect(llmOf({ fallback: ["gemini", "local"] }).fallback).toEqual(["gemini", "local"]);
    expect(llmOf({ maxTokensPerRun: 50_000 }).maxTokensPerRun).toBe(50_000);
    expect(llmOf().retry).toEqual({
      retries: 4,
      minDelayMs: 500,
      maxDelayMs: 30_000,
      maxRetryAfterMs: 60_000,
    });
    expect(() => resolveConfig({ llm: { maxTokensPerRun: 0 } })).toThrow(/llm.maxTokensPerRun/);
    expect(() => resolveConfig({ llm: { temperature: 1 } as never })).toThrow(/unknown key/);
  });
});

describe("selectLanguageModels", () => {
  it("chooses none by default, even with keys in the environment", async () => {
    const none = await selectLanguageModels(llmOf(), registry, { OPENAI_CONVENTIONAL: "k" });
    expect(none).toEqual({ models: [], notes: ["llm.provider is none"], warnings: [] });
  });

  it("auto: local → openai → gemini, by what is set up", async () => {
    const env = { OPENAI_CONVENTIONAL: "k", GEMINI_CONVENTIONAL: "g" };
    expect(ids(await selectLanguageModels(llmOf({ provider: "auto" }), registry, env))).toEqual([
      "openai/openai-default",
    ]);
    const local = await selectLanguageModels(llmOf({ provider: "auto" }), registry, {
      ...env,
      ENGRAM_LLM_LOCAL_MODEL_PATH: "/models/chat.gguf",
    });
    expect(ids(local)).toEqual(["local/local-default"]);
  });

  it("ENGRAM_LLM_PROVIDER / _MODEL / _FALLBACK override the config", async () => {
    const selection = await selectLanguageModels(
      llmOf({ provider: "gemini", model: "gemini-2.5-flash", fallback: ["local"] }),
      registry,
      {
        ENGRAM_LLM_PROVIDER: "openai",
        ENGRAM_LLM_MODEL: "gpt-4.1-mini",
        ENGRAM_LLM_FALLBACK: "gemini, local",
        OPENAI_CONVENTIONAL: "k",
        GEMINI_CONVENTIONAL: "g",
      },
    );
    expect(ids(selection)).toEqual(["openai/gpt-4.1-mini", "gemini/gemini-default"]);
    expect(selection.notes).toEqual(["fallback local: no modelPath"]);
  });

  it("shares provider-wide variables with embeddings, except scoped ones such as the model", async () => {
    const env = {
      OPENAI_CONVENTIONAL: "k",
      ENGRAM_OPENAI_BASE_URL: "http://localhost:11434/v1",
      ENGRAM_OPENAI_MODEL: "nomic-embed-text", // the embedding model: never the chat model
    };
    const llm = llmOf({ provider: "openai", providers: { openai: { model: "qwen3:4b" } } });
    const [model] = (await selectLanguageModels(llm, registry, env)).models;
    expect(model).toMatchObject({ model: "qwen3:4b", endpoint: "http://localhost:11434/v1" });
    const [scoped] = (
      await selectLanguageModels(llm, registry, {
        ...env,
        ENGRAM_LLM_OPENAI_MODEL: "llama3.2",
        ENGRAM_LLM_OPENAI_BASE_URL: "http://localhost:1234/v1",
      })
    ).models;
    expect(scoped).toMatchObject({ model: "llama3.2", endpoint: "http://localhost:1234/v1" });
  });

  it("passes over a named provider that cannot run with a warning, and tries the fallbacks", async () => {
    const selection = await selectLanguageModels(
      llmOf({ provider: "openai", fallback: ["local", "none"] }),
      registry,
      { ENGRAM_LLM_LOCAL_MODEL_PATH: "/models/chat.gguf" },
    );
    expect(ids(selection)).toEqual(["local/local-default"]);
    expect(selection.warnings).toEqual([
      expect.stringMatching(
        /^language model provider "openai" cannot run: no apiKey \(trying the fallbacks; engram works without a language model meanwhile; .* set llm\.provider to "auto" or "none"\)$/,
      ),
    ]);
    expect(selection.notes).toEqual(["openai: no apiKey"]);
  });

  it("refuses unknown providers, settings and a misplaced none, naming llm", async () => {
    await expect(selectLanguageModels(llmOf({ provider: "claude" }), registry, {})).rejects.toThrow(
      /language model provider "claude" is not available/,
    );
    await expect(
      selectLanguageModels(llmOf({ provider: "openai", fallback: ["gemni"] }), registry, {}),
    ).rejects.toThrow(/language model provider "gemni" is not available/);
    await expect(
      selectLanguageModels(
        llmOf({ provider: "openai", providers: { openai: { apiKey: "k", temperature: 1 } } }),
        registry,
        {},
      ),
    ).rejects.toThrow(/language model provider "openai" has no setting "temperature"/);
    expect(() => llmOf({ fallback: ["none", "local"] })).toThrow(
      /"none" must be the last fallback/,
    );
  });
});
