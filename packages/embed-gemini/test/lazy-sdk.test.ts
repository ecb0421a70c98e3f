import { describe, expect, it, vi } from "vitest";

// The CLI imports every provider descriptor to auto-select one: loading this package and
// checking it must not load @google/genai. The mock records when the SDK module is loaded.
const sdk = vi.hoisted(() => ({ loaded: false }));
vi.mock("@google/genai", async (importOriginal) => {
  sdk.loaded = true;
  return importOriginal();
});

describe("the SDK loads lazily", () => {
  it("importing the package and calling check() does not load @google/genai", async () => {
    const { geminiProvider } = await import("../src/index.js");
    expect(geminiProvider.check({ apiKey: "k" })).toEqual({ ok: true });
    expect(Object.keys(geminiProvider.settings)).toContain("apiKey");
    expect(sdk.loaded).toBe(false);
  });

  it("create() is where it loads", async () => {
    const { geminiProvider } = await import("../src/index.js");
    const embedder = await geminiProvider.create({ apiKey: "k" });
    expect(embedder.dims).toBe(3072);
    expect(sdk.loaded).toBe(true);
  });
});
