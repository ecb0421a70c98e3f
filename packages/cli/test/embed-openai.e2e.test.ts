import type { MemoryStatus, SyncEstimate, SyncReport } from "@engram/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  insufficientQuota,
  type OpenAIWireServer,
  rateLimited,
} from "../../embed-openai/test/openai-wire-server.js";
import { engram } from "./helpers.js";
import { type OpenAIWorkspace, openAIWorkspace } from "./openai-workspace.js";

/**
 * The `engram` CLI, in a child process, embedding through the real `openai` SDK against a local
 * server that speaks OpenAI's wire format: what a cold sync and a re-sync cost in requests and
 * tokens, and that a rate limit is retried while a used-up quota is called once and then left alone.
 */
describe("engram with an OpenAI-compatible endpoint", () => {
  let ws: string;
  let server: OpenAIWireServer;
  let env: NodeJS.ProcessEnv;
  const run = async <T>(...args: string[]): Promise<T> => {
    const { code, stdout, stderr } = await engram([...args, "--json", "--workspace", ws], { env });
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout) as T;
  };
  const embeddingCalls = () => server.count("POST /embeddings");

  let workspace: OpenAIWorkspace;

  beforeEach(async () => {
    const files: Record<string, string> = {
      "MEMORY.md": "# Memory\n\nThe deploy window is Tuesday.\n",
    };
    for (let i = 0; i < 30; i++) {
      files[`memory/2026-10-${String(i + 1).padStart(2, "0")}.md`] =
        `# Day ${i}\n\n## 10:00\nWorked on task ${i}: 修复 bug ${i} in the billing service.\n`;
    }
    workspace = await openAIWorkspace(files);
    ({ ws, server, env } = workspace);
  });
  afterEach(() => workspace.close());

  it("auto-selects OpenAI from the environment; a re-sync costs nothing", async () => {
    const estimate = await run<SyncEstimate>("sync", "--dry-run");
    expect(estimate).toMatchObject({ chunks: 31, toEmbed: { chunks: 31 } });
    expect(estimate.provider).toBe(`openai/text-embedding-3-small/1536@${server.baseUrl}`);
    expect(embeddingCalls()).toBe(0);

    const cold = await run<SyncReport>("sync");
    expect(cold.embedding).toMatchObject({ embedded: 31, cacheHits: 0, pendingFiles: 0 });
    expect(cold.embedding.requests).toBe(embeddingCalls());
    expect(cold.embedding.tokens).toBe(estimate.toEmbed.tokens);
    const afterCold = embeddingCalls();

    const warm = await run<SyncReport>("sync");
    expect(warm.embedding).toMatchObject({ embedded: 0, requests: 0 });
    const rebuilt = await run<SyncReport>("sync", "--force");
    expect(rebuilt.embedding).toMatchObject({ embedded: 0, cacheHits: 31, requests: 0 });
    expect(embeddingCalls()).toBe(afterCold);

    const response = await run<{ degraded: boolean; results: Array<Record<string, unknown>> }>(
      "search",
      "billing bug 7",
      "--min-score",
      "0",
    );
    expect(response.degraded).toBe(false);
    expect(response.results[0]).toMatchObject({
      provider: "openai",
      model: "text-embedding-3-small",
      fallback: false,
    });
    expect(embeddingCalls()).toBe(afterCold + 1); // the query

    const status = await run<MemoryStatus>("status");
    expect(status.providers[0]).toMatchObject({ primary: true, active: true });
    // 31 misses (cold), 31 hits (the forced rebuild).
    expect(status.cache).toMatchObject({ entries: 31, hits: 31, misses: 31, hitRate: 0.5 });
  });

  it("retries a rate limit after Retry-After, then carries on", async () => {
    server.once("POST /embeddings", rateLimited({ retryAfterMs: "50" }));
    const report = await run<SyncReport>("sync");
    expect(report.embedding).toMatchObject({ embedded: 31, pendingFiles: 0, retries: 1 });
    // Every request the server saw is counted, the rate-limited one included.
    expect(embeddingCalls()).toBe(report.embedding.requests);
    expect(report.warnings).toEqual([expect.stringContaining("was retried")]);
  });

  it("a used-up quota costs one request; the next sync does not call again", async () => {
    server.always("POST /embeddings", insufficientQuota());
    const first = await engram(["sync", "--workspace", ws], { env });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("embedding stopped");
    expect(first.stderr).toContain("quota");
    expect(embeddingCalls()).toBe(1);

    const status = await run<MemoryStatus>("status");
    expect(status.providers[0]?.circuit).toMatchObject({
      state: "open",
      lastErrorCode: "EMBEDDING_QUOTA",
    });
    expect(status.vectorsPending).toBe(31);
    expect(status.store.chunks).toBe(31);

    const second = await run<SyncReport>("sync");
    expect(second.embedding.requests).toBe(0);
    expect(embeddingCalls()).toBe(1);
    // Keyword search still answers, and says it is degraded.
    const response = await run<{ degraded: boolean; results: unknown[] }>(
      "search",
      "deploy window",
    );
    expect(response.degraded).toBe(true);
    expect(response.results.length).toBeGreaterThan(0);
    expect(embeddingCalls()).toBe(1);
  });

  it("with no key anywhere, auto means keyword search and status says why", async () => {
    const status = await engram(["status", "--json", "--workspace", ws], { env: {} });
    const parsed = JSON.parse(status.stdout) as MemoryStatus;
    expect(parsed.embedding).toBeNull();
    expect(parsed.providerNotes).toContain("openai: no OPENAI_API_KEY");
  });
});
