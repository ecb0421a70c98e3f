import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStatus, SearchResponse, SyncReport } from "@engram/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "../../embed-openai/test/openai-wire-server.js";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * The config means what it says, and writing memory never depends on a provider (issue 20, items
 * 10–13), checked on the built CLI in child processes.
 */
describe("provider and store config", () => {
  let ws: string;
  let server: OpenAIWireServer;
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    engram([...args, "--workspace", ws], { env });
  const config = (value: unknown) =>
    writeFile(join(ws, "engram.config.json"), JSON.stringify(value));

  beforeAll(async () => {
    server = await startOpenAIWireServer({ apiKey: "sk-test-key" });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async (context) => {
    ws = await tempDir();
    context.onTestFinished(() => removeDir(ws));
    await writeFiles(ws, { "MEMORY.md": "# Memory\n\nThe deploy window is Tuesday.\n" });
  });

  it("a named local provider without its model file falls back to openai at start-up (item 10)", async () => {
    await config({ embedding: { provider: "local", fallback: ["openai"] } });
    const env = { OPENAI_API_KEY: "sk-test-key", ENGRAM_OPENAI_BASE_URL: server.baseUrl };
    const add = await cli(["add", "Lin prefers advisory locks"], env);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('warning: embedding provider "local" cannot run');
    expect(add.stderr).toContain("trying the fallbacks");
    const sync = await cli(["sync", "--json"], env);
    expect(sync.code, sync.stderr).toBe(0);
    expect((JSON.parse(sync.stdout) as SyncReport).embedding.provider).toMatch(/^openai\//);
  });

  it("a named openai provider without a key writes and searches by keywords, naming the key (item 11)", async () => {
    await config({ embedding: { provider: "openai" } });
    const add = await cli(["add", "the quetzal rollout is blocked on review"]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain("OPENAI_API_KEY");
    const search = await cli(["search", "quetzal rollout", "--json"]);
    expect(search.code, search.stderr).toBe(0);
    const response = JSON.parse(search.stdout) as SearchResponse;
    expect(response.degraded).toBe(true);
    expect(response.results[0]?.snippet).toContain("quetzal rollout");
    const status = JSON.parse((await cli(["status", "--json"])).stdout) as MemoryStatus;
    expect(status.warnings.join()).toContain("OPENAI_API_KEY");
  });

  it('fallback takes one id as a string, "none" last, and refuses what cannot mean anything (item 12)', async () => {
    await config({ embedding: { provider: "none", fallback: "gemini" } });
    expect((await cli(["status"])).code).toBe(0);
    await config({ embedding: { fallback: ["none"] } });
    expect((await cli(["status"])).code).toBe(0);
    await config({ embedding: { fallback: ["none", "openai"] } });
    const misplaced = await cli(["status"]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('"none" must be the last fallback');
    await config({ embedding: { fallback: ["cohere"] } });
    const unknown = await cli(["status"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"cohere"');
  });

  it("a lowered cache.maxEntries is applied by the next sync, embedding or not (item 12)", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`memory/notes/n${i}.md`] = `# N${i}\n\ntopic ${i}\n`;
    await writeFiles(ws, files);
    const env = { OPENAI_API_KEY: "sk-test-key", ENGRAM_OPENAI_BASE_URL: server.baseUrl };
    expect((await cli(["sync"], env)).code).toBe(0);
    const full = JSON.parse((await cli(["status", "--json"], env)).stdout) as MemoryStatus;
    expect(full.cache?.entries).toBe(9);
    await config({ cache: { maxEntries: 3 } });
    expect((await cli(["sync"], env)).code).toBe(0);
    const pruned = JSON.parse((await cli(["status", "--json"], env)).stdout) as MemoryStatus;
    expect(pruned.cache?.maxEntries).toBe(3);
    expect(pruned.cache?.entries).toBeLessThanOrEqual(3);
  });

  it("reindex --to another store embeds nothing the configured store's cache holds (issue 26)", async () => {
    const files: Record<string, string> = {};
    const fruit = ["苹果", "香蕉", "樱桃", "葡萄", "西瓜", "柠檬"];
    for (const [i, name] of fruit.entries()) {
      files[`memory/notes/n${i}.md`] = `# N${i}\n\n${name}\n`;
    }
    await writeFiles(ws, files);
    const env = { OPENAI_API_KEY: "sk-test-key", ENGRAM_OPENAI_BASE_URL: server.baseUrl };
    expect((await cli(["sync"], env)).code).toBe(0);
    const calls = server.count("POST /embeddings");
    const reindex = await cli(["reindex", "--to", "memory", "--json"], env);
    expect(reindex.code, reindex.stderr).toBe(0);
    const { report } = JSON.parse(reindex.stdout) as { report: SyncReport };
    expect(report.embedding).toMatchObject({ embedded: 0 });
    expect(report.embedding.cacheHits).toBeGreaterThanOrEqual(7);
    expect(server.count("POST /embeddings")).toBe(calls);
    const search = await cli(["search", "樱桃", "--store", "memory", "--json"], env);
    expect((JSON.parse(search.stdout) as SearchResponse).results[0]?.path).toBe(
      "memory/notes/n2.md",
    );
  });

  it("every store option reaches the driver, and an unknown one is refused (item 13)", async () => {
    await config({ store: { options: { vectors: false } } });
    const env = { OPENAI_API_KEY: "sk-test-key", ENGRAM_OPENAI_BASE_URL: server.baseUrl };
    const calls = server.count("POST /embeddings");
    const sync = await cli(["sync", "--json"], env);
    expect(sync.code, sync.stderr).toBe(0);
    const status = JSON.parse((await cli(["status", "--json"], env)).stdout) as MemoryStatus;
    expect(status.store).toMatchObject({ chunks: 1, vectors: 0 });
    expect(server.count("POST /embeddings")).toBe(calls);

    await config({ store: { options: { bogus: 1 } } });
    const bogus = await cli(["status"]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain("The sqlite store option bogus is 1; it must be left out");
    await config({ store: { options: { vectors: "no" } } });
    expect((await cli(["status"])).code).toBe(2); // CONFIG_INVALID: vectors must be true or false
  });
});
