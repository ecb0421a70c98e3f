import { describe, expect, it, vi } from "vitest";

// `@engram/embed-openai/providers` is what the CLI imports to auto-select a provider: loading it
// and calling check() must not load the embedder or the chat model (nor, through them, the SDK).
// The mocks record when those modules load; the tests run in order, the main entry (which loads
// everything) last.
const loaded = vi.hoisted(() => new Set<string>());
vi.mock("../src/embedder.js", async (importOriginal) => {
  loaded.add("embedder");
  return importOriginal();
});
vi.mock("../src/chat-model.js", async (importOriginal) => {
  loaded.add("chat-model");
  return importOriginal();
});

describe("the providers entry", () => {
  it("checks without loading the embedder or the chat model", async () => {
    const entry = await import("../src/providers.js");
    expect(entry.openaiProvider.check({ apiKey: "k" })).toEqual({ ok: true });
    expect(entry.openaiLanguageModelProvider.check({})).toMatchObject({ ok: false });
    expect(entry.checkOpenAI({ baseUrl: "http://localhost:11434/v1" })).toEqual({ ok: true });
    expect([...loaded]).toEqual([]);
  });

  it("loads each in create()", async () => {
    const { openaiProvider, openaiLanguageModelProvider } = await import("../src/providers.js");
    const embedder = await openaiProvider.create({ apiKey: "k" });
    expect(embedder.dims).toBeGreaterThan(0);
    expect([...loaded]).toEqual(["embedder"]);
    await openaiLanguageModelProvider.create({ apiKey: "k", model: "gpt-4.1-mini" });
    expect([...loaded]).toEqual(["embedder", "chat-model"]);
  });
  it("holds the descriptors the main entry exports", async () => {
    const [entry, main] = await Promise.all([
      import("../src/providers.js"),
      import("../src/index.js"),
    ]);
    expect(entry.openaiProvider).toBe(main.openaiProvider);
    expect(entry.openaiLanguageModelProvider).toBe(main.openaiLanguageModelProvider);
  });
});
