import { describe, expect, it, vi } from "vitest";

// `@engram/embed-gemini/providers` is what the CLI imports to auto-select a provider: loading it
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
    expect(entry.geminiProvider.check({ apiKey: "k" })).toEqual({ ok: true });
    expect(entry.geminiLanguageModelProvider.check({})).toMatchObject({ ok: false });
    expect([...loaded]).toEqual([]);
  });

  it("loads each in create()", async () => {
    const { geminiProvider, geminiLanguageModelProvider } = await import("../src/providers.js");
    await geminiProvider.create({ apiKey: "k" });
    expect([...loaded]).toEqual(["embedder"]);
    await geminiLanguageModelProvider.create({ apiKey: "k" });
    expect([...loaded]).toEqual(["embedder", "chat-model"]);
  });
  it("holds the descriptors the main entry exports", async () => {
    const [entry, main] = await Promise.all([
      import("../src/providers.js"),
      import("../src/index.js"),
    ]);
    expect(entry.geminiProvider).toBe(main.geminiProvider);
    expect(entry.geminiLanguageModelProvider).toBe(main.geminiLanguageModelProvider);
  });
});
