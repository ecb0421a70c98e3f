import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, resolveConfig } from "../../src/config/load.js";
import { isEngramError } from "../../src/errors.js";

describe("config", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-config-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("fills the seeds' defaults", () => {
    const c = resolveConfig({});
    expect(c.chunking).toEqual({ tokens: 400, overlap: 80, logs: { tokens: 175, overlap: 35 } });
    // No reranker unless one is named; when one is, it reranks every search by default.
    expect(c.search.rerank).toEqual({
      provider: "none",
      enabled: true,
      candidates: 30,
      timeoutMs: 5000,
      includePrivate: false,
      providers: {},
    });
    expect(() => resolveConfig({ search: { rerank: { provder: "http" } } } as never)).toThrow(
      /unknown key/,
    );
    expect(c.search).toMatchObject({
      maxResults: 6,
      candidateMultiplier: 4,
      fusion: "weighted",
      vectorWeight: 0.7,
      textWeight: 0.3,
      weighting: "agreement",
      rrfK: 10,
      snippetChars: 700,
    });
    expect(c.search.minScore).toBeUndefined();
    expect(c.sync.watchDebounceMs).toBe(1500);
    expect(c.cache.maxEntries).toBe(50_000);
    expect(c.store.driver).toBe("sqlite");
  });

  it("works without a config file", async () => {
    expect((await loadConfig(dir)).search.maxResults).toBe(6);
  });

  it("merges the file with overrides section by section", async () => {
    await writeFile(
      join(dir, "engram.config.json"),
      JSON.stringify({ search: { maxResults: 3, fusion: "rrf" } }),
    );
    const c = await loadConfig(dir, { search: { maxResults: 9 } });
    expect(c.search.maxResults).toBe(9);
    expect(c.search.fusion).toBe("rrf");
  });

  it("names every problem with its key path", () => {
    try {
      resolveConfig({
        search: { maxResults: "5" },
        chunking: { tokens: 100, overlap: 200 },
        serach: {},
      } as never);
      expect.unreachable();
    } catch (error) {
      expect(isEngramError(error, "CONFIG_INVALID")).toBe(true);
      const message = (error as Error).message;
      expect(message).toContain("search.maxResults");
      expect(message).toContain("serach: unknown key");
      expect(message).toContain("chunking: overlap must be smaller than tokens");
    }
  });

  it("reports malformed JSON with the file name and a fix", async () => {
    await writeFile(join(dir, "engram.config.json"), "{ search: ");
    await expect(loadConfig(dir)).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("engram.config.json is not valid JSON"),
      hint: expect.stringContaining("delete the file"),
    });
  });

  it("refuses a config that is not an object", async () => {
    await writeFile(join(dir, "engram.config.json"), "[1,2]");
    await expect(loadConfig(dir)).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});
