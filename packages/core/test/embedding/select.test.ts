import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/load.js";
import type { EngramConfigInput } from "../../src/config/schema.js";
import type { EmbeddingProvider } from "../../src/embedding/provider.js";
import { type ProviderRegistry, selectEmbedders } from "../../src/embedding/select.js";
import { createHashingEmbedder } from "../../src/testing/hashing-embedder.js";

/** A provider whose check needs `key` (or `modelPath` for local), creating a hashing embedder. */
function testProvider(id: string, needs: string): EmbeddingProvider {
  return {
    id,
    settings: {
      [needs]: { type: "string", env: [`${id.toUpperCase()}_CONVENTIONAL`], description: needs },
      model: { type: "string", description: "model" },
    },
    check: (s) => (s[needs] ? { ok: true } : { ok: false, reason: `no ${needs}` }),
    create: async (s) => {
      const e = createHashingEmbedder({ model: String(s.model ?? `${id}-default`) });
      return Object.assign(e, { id });
    },
  };
}

const registry: ProviderRegistry = {
  local: async () => testProvider("local", "modelPath"),
  openai: async () => testProvider("openai", "apiKey"),
  gemini: async () => testProvider("gemini", "apiKey"),
};
const embeddingOf = (input: EngramConfigInput["embedding"] = {}) =>
  resolveConfig({ embedding: input }).embedding;
const ids = (s: { embedders: Array<{ id: string }> }) => s.embedders.map((e) => e.id);

describe("selectEmbedders", () => {
  it("auto: local → openai → gemini → none, by what is set up", async () => {
    expect(ids(await selectEmbedders(embeddingOf(), registry, {}))).toEqual([]);
    expect(
      ids(await selectEmbedders(embeddingOf(), registry, { GEMINI_CONVENTIONAL: "g" })),
    ).toEqual(["gemini"]);
    expect(
      ids(
        await selectEmbedders(embeddingOf(), registry, {
          GEMINI_CONVENTIONAL: "g",
          OPENAI_CONVENTIONAL: "o",
        }),
      ),
    ).toEqual(["openai"]);
    const local = await selectEmbedders(embeddingOf(), registry, {
      OPENAI_CONVENTIONAL: "o",
      ENGRAM_LOCAL_MODEL_PATH: "/m.gguf",
    });
    expect(ids(local)).toEqual(["local"]);
  });

  it("auto with nothing set up explains why each provider was passed over", async () => {
    const none = await selectEmbedders(
      embeddingOf(),
      { ...registry, gemini: async () => undefined },
      {},
    );
    expect(none.notes).toEqual([
      "local: no modelPath",
      "openai: no apiKey",
      "gemini: driver not installed (@engram/embed-gemini)",
    ]);
  });

  it("a named provider that cannot run is a warning, not an error; an unknown one is refused", async () => {
    // Writing memory and keyword search never depend on a provider (the Bee and BitwiseAI seeds
    // run BM25 when no key is set): the selection is empty, and says why once.
    const unusable = await selectEmbedders(embeddingOf({ provider: "openai" }), registry, {});
    expect(unusable.embedders).toEqual([]);
    expect(unusable.explicit).toBe(true);
    expect(unusable.warnings).toEqual([expect.stringContaining('"openai" cannot run: no apiKey')]);
    await expect(
      selectEmbedders(embeddingOf({ provider: "cohere" }), registry, {}),
    ).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      hint: expect.stringContaining("openai"),
    });
  });

  it("a named provider that cannot run hands over to its fallback at start-up", async () => {
    const selection = await selectEmbedders(
      embeddingOf({ provider: "local", fallback: ["openai"] }),
      registry,
      { ENGRAM_OPENAI_API_KEY: "k" },
    );
    expect(ids(selection)).toEqual(["openai"]);
    expect(selection.notes).toEqual(["local: no modelPath"]);
    expect(selection.warnings[0]).toContain("trying the fallbacks");
  });

  it("fallback takes one id or a list; none ends the list; auto and misplaced none are refused", async () => {
    const one = await selectEmbedders(
      embeddingOf({ provider: "openai", fallback: "local" }),
      registry,
      { ENGRAM_OPENAI_API_KEY: "k", ENGRAM_LOCAL_MODEL_PATH: "/m.gguf" },
    );
    expect(ids(one)).toEqual(["openai", "local"]);
    const none = await selectEmbedders(
      embeddingOf({ provider: "openai", fallback: ["none"] }),
      registry,
      { ENGRAM_OPENAI_API_KEY: "k" },
    );
    expect(ids(none)).toEqual(["openai"]);
    expect(none.notes).toEqual([]);
    expect(() => embeddingOf({ fallback: ["none", "local"] })).toThrow(/must be the last/);
    expect(() => embeddingOf({ fallback: ["auto"] })).toThrow(/not a fallback/);
    await expect(
      selectEmbedders(embeddingOf({ provider: "openai", fallback: ["cohere"] }), registry, {
        ENGRAM_OPENAI_API_KEY: "k",
      }),
    ).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });

  it("adds usable fallbacks in order and notes the others", async () => {
    const selection = await selectEmbedders(
      embeddingOf({
        provider: "openai",
        fallback: ["gemini", "local"],
        providers: { openai: { apiKey: "k" } },
      }),
      registry,
      { ENGRAM_LOCAL_MODEL_PATH: "/m.gguf" },
    );
    expect(ids(selection)).toEqual(["openai", "local"]);
    expect(selection.notes).toEqual(["fallback gemini: no apiKey"]);
  });

  it("environment overrides provider, model and fallback", async () => {
    const selection = await selectEmbedders(embeddingOf({ provider: "none" }), registry, {
      ENGRAM_EMBEDDING_PROVIDER: "openai",
      ENGRAM_EMBEDDING_MODEL: "nomic-embed-text",
      ENGRAM_EMBEDDING_FALLBACK: "local",
      ENGRAM_OPENAI_API_KEY: "k",
      ENGRAM_LOCAL_MODEL_PATH: "/m.gguf",
    });
    expect(selection.embedders.map((e) => `${e.id}:${e.model}`)).toEqual([
      "openai:nomic-embed-text",
      "local:local-default",
    ]);
  });

  it("none means keyword search only", async () => {
    expect(
      ids(
        await selectEmbedders(embeddingOf({ provider: "none" }), registry, {
          OPENAI_CONVENTIONAL: "o",
        }),
      ),
    ).toEqual([]);
  });
});
