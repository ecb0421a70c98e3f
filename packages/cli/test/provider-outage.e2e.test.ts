import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStatus, SearchResponse, SyncReport } from "@engram/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  insufficientQuota,
  type OpenAIWireServer,
  serverError,
} from "../../embed-openai/test/openai-wire-server.js";
import { engram } from "./helpers.js";
import { type OpenAIWorkspace, openAIWorkspace } from "./openai-workspace.js";

/**
 * The `engram` CLI in child processes against a local server speaking OpenAI's wire format while it
 * fails (issue 20, items 1 and 17): memory whose vectors are owed stays findable, one CLI call's
 * failures pause the provider for the next call, and a paused provider resumes in one sync.
 */
describe("engram while the embedding provider fails", () => {
  let ws: string;
  let server: OpenAIWireServer;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => engram([...args, "--workspace", ws], { env });
  const run = async <T>(...args: string[]): Promise<T> => {
    const { code, stdout, stderr } = await cli(...args, "--json");
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
      files[`memory/notes/n${i}.md`] = `# Note ${i}\n\nWorked on task ${i}: 修复 bug ${i}.\n`;
    }
    workspace = await openAIWorkspace(files);
    ({ ws, server, env } = workspace);
  });
  afterEach(() => workspace.close());

  it("a fact added while the provider fails is found once it is back (item 1)", async () => {
    await writeConfig({ embedding: { retry: { retries: 0 } } });
    await run<SyncReport>("sync");
    server.always("POST /embeddings", serverError());
    expect((await cli("add", "Lin's pin for the quetzal vault is in the team safe")).code).toBe(0);
    const owed = await run<SyncReport>("sync");
    expect(owed.embedding.pendingFiles).toBe(1);
    expect(owed.warnings.join("\n")).toContain("embedding stopped");
    server.heal("POST /embeddings");

    const response = await run<SearchResponse>("search", "quetzal vault", "--no-sync");
    expect(response.degraded).toBe(false);
    expect(response.vectorsOwed).toBe(1);
    expect(response.results[0]).toMatchObject({ vectorOwed: true });
    expect(response.results[0]?.snippet).toContain("quetzal vault");
    const text = await cli("search", "quetzal vault", "--no-sync");
    expect(text.stdout).toContain("1 file(s) still owe their vectors");
  });

  it("a used-up quota costs one request across five CLI searches, and status says so (item 17)", async () => {
    await run<SyncReport>("sync");
    const before = embeddingCalls();
    server.always("POST /embeddings", insufficientQuota());
    for (let i = 0; i < 5; i++) {
      const response = await run<SearchResponse>("search", `deploy window ${i}`, "--no-sync");
      expect(response.degraded).toBe(true);
      expect(response.results.length).toBeGreaterThan(0);
    }
    expect(embeddingCalls() - before).toBe(1);
    const status = await run<MemoryStatus>("status");
    expect(status.degraded).toBe(true);
    expect(status.providers[0]?.circuit).toMatchObject({
      state: "open",
      lastErrorCode: "EMBEDDING_QUOTA",
    });
  });

  it("server errors: a query is retried once, and three failed searches pause the provider (item 17)", async () => {
    await run<SyncReport>("sync");
    const before = embeddingCalls();
    server.always("POST /embeddings", serverError());
    for (let i = 0; i < 5; i++) {
      expect((await run<SearchResponse>("search", "deploy", "--no-sync")).degraded).toBe(true);
    }
    // Searches 1–3: one attempt and one retry each; then the circuit is open for everyone.
    expect(embeddingCalls() - before).toBe(6);
    expect((await run<MemoryStatus>("status")).providers[0]?.circuit.state).toBe("open");
  });

  it("after the pause, one sync embeds everything it owes (the half-open trial is not alone, item 17)", async () => {
    await writeConfig({
      embedding: {
        retry: { retries: 0 },
        circuit: { failureThreshold: 1, cooldownMs: 300, finalCooldownMs: 600_000 },
      },
    });
    server.always("POST /embeddings", serverError());
    const failed = await run<SyncReport>("sync");
    expect(failed.embedding.pendingFiles).toBe(31);
    expect(failed.embedding.requests).toBe(embeddingCalls());
    expect(failed.embedding.failures).toBeGreaterThan(0);
    expect(failed.warnings.join("\n")).toContain("embedding stopped");
    server.heal("POST /embeddings");
    await new Promise((resolve) => setTimeout(resolve, 400));

    const resumed = await run<SyncReport>("sync");
    expect(resumed.embedding).toMatchObject({ embedded: 31, pendingFiles: 0 });
    expect(resumed.embedding.stopped).toBeUndefined();
    expect((await run<MemoryStatus>("status")).store.vectors).toBe(31);
  });

  async function writeConfig(config: unknown): Promise<void> {
    await writeFile(join(ws, "engram.config.json"), JSON.stringify(config));
  }
});
