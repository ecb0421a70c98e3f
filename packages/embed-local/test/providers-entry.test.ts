import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";

// `@engram/embed-local/providers` is what the CLI imports to auto-select a provider: loading it
// and calling check() must not load the embedder, the reranker or the chat model (nor, through
// them, node-llama-cpp). The mocks record when those modules load.
const loaded = vi.hoisted(() => new Set<string>());
vi.mock("../src/embedder.js", async (importOriginal) => {
  loaded.add("embedder");
  return importOriginal();
});
vi.mock("../src/reranker.js", async (importOriginal) => {
  loaded.add("reranker");
  return importOriginal();
});
vi.mock("../src/chat-model.js", async (importOriginal) => {
  loaded.add("chat-model");
  return importOriginal();
});

const missing = join(import.meta.dirname, "no-such-model.gguf");

describe("the providers entry", () => {
  it("checks without loading the embedder, the reranker or the chat model", async () => {
    const entry = await import("../src/providers.js");
    expect(await entry.localProvider.check({})).toMatchObject({ ok: false });
    expect(await entry.localRerankerProvider.check({ modelPath: missing })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not found"),
    });
    expect(await entry.localLanguageModelProvider.check({ modelPath: missing })).toMatchObject({
      ok: false,
    });
    expect([...loaded]).toEqual([]);
  });

  it("loads each in create() (which then refuses a missing model)", async () => {
    const entry = await import("../src/providers.js");
    await expect(entry.localProvider.create({ modelPath: missing })).rejects.toThrow();
    await expect(entry.localRerankerProvider.create({ modelPath: missing })).rejects.toThrow();
    await expect(entry.localLanguageModelProvider.create({ modelPath: missing })).rejects.toThrow();
    expect([...loaded].sort()).toEqual(["chat-model", "embedder", "reranker"]);
  });
  it("holds the descriptors the main entry exports", async () => {
    const [entry, main] = await Promise.all([
      import("../src/providers.js"),
      import("../src/index.js"),
    ]);
    expect(entry.localProvider).toBe(main.localProvider);
    expect(entry.localRerankerProvider).toBe(main.localRerankerProvider);
    expect(entry.localLanguageModelProvider).toBe(main.localLanguageModelProvider);
  });
});
