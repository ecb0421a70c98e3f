import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { MemoryStatus, SearchResponse, SyncReport } from "@engram/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  insufficientQuota,
  type OpenAIWireServer,
  type Responder,
  rateLimited,
  serverError,
  startOpenAIWireServer,
} from "../../embed-openai/test/openai-wire-server.js";
import { okJson } from "./support/cli.js";
import { record } from "./support/figures.js";
import { removeTemps, tempDir, writeFiles } from "./support/workspace.js";

afterAll(removeTemps);

const RETRIES = 1;
const THRESHOLD = 3;
const SEARCHES = 6;

/**
 * Provider storms: a local server in OpenAI's wire format answers every embedding request with a
 * used-up quota, a rate limit or a server error. Every command still answers (keyword search,
 * owed vectors), and the requests stay bounded by the retry policy and the circuit breaker,
 * whose pause outlives each CLI process: a search never pays again for what the sync learnt.
 */
describe("provider storms", () => {
  let server: OpenAIWireServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function workspace(circuit: Record<string, number> = {}) {
    server = await startOpenAIWireServer({ apiKey: "sk-storm" });
    const ws = await tempDir();
    const files: Record<string, string> = {
      "MEMORY.md": "# Memory\n\nThe deploy window is Tuesday.\n",
    };
    for (let i = 0; i < 40; i++) {
      files[`memory/notes/n${i}.md`] =
        `# Note ${i}\n\nWorked on task ${i}: 修复 bug ${i} in module m${i}.\n`;
    }
    await writeFiles(ws, files);
    await writeFile(
      join(ws, "engram.config.json"),
      JSON.stringify({
        embedding: {
          provider: "openai",
          retry: { retries: RETRIES, minDelayMs: 20, maxDelayMs: 100, maxRetryAfterMs: 200 },
          circuit: { failureThreshold: THRESHOLD, ...circuit },
        },
      }),
    );
    const env = {
      OPENAI_API_KEY: "sk-storm",
      ENGRAM_OPENAI_BASE_URL: server.baseUrl,
      ENGRAM_OPENAI_TIMEOUT_MS: "5000",
    };
    const calls = () => server?.count("POST /embeddings") ?? 0;
    return { ws, env, calls, server };
  }

  // The bound on every request the sync and the searches make together: a used-up quota is final
  // (one request, then the pause, persisted, holds every later process); retryable failures are
  // tried 1 + RETRIES times each until THRESHOLD failures open the breaker, whichever process
  // (sync or search) meets them.
  const storms: Array<[string, () => Responder, number]> = [
    ["used-up quota (429 insufficient_quota)", insufficientQuota, 1],
    ["rate limit (429)", () => rateLimited({ retryAfterMs: "20" }), THRESHOLD * (RETRIES + 1)],
    ["server error (500)", serverError, THRESHOLD * (RETRIES + 1)],
  ];

  for (const [name, responder, bound] of storms) {
    it(`${name}: every command answers; requests stay bounded`, async () => {
      const { ws, env, calls, server } = await workspace();
      server.always("POST /embeddings", responder());
      const report = await okJson<SyncReport>(["sync", "-w", ws], env);
      expect(report.files).toBe(41);
      expect(report.embedding.pendingFiles).toBe(41); // keyword-searchable, vectors owed
      const bySync = calls();
      expect(bySync).toBeGreaterThan(0);
      for (let i = 0; i < SEARCHES; i++) {
        const response = await okJson<SearchResponse>(
          ["search", `task ${i} 修复`, "--no-sync", "-w", ws],
          env,
        );
        expect(response.degraded).toBe(true);
        expect(response.results.length).toBeGreaterThan(0);
      }
      const bySearches = calls() - bySync;
      expect(calls()).toBeLessThanOrEqual(bound);
      const status = await okJson<MemoryStatus>(["status", "-w", ws], env);
      expect(status.vectorsPending).toBe(41);
      expect(status.degraded).toBe(true);
      record(`storm: ${name}`, {
        "requests by sync": bySync,
        [`requests by ${SEARCHES} searches`]: bySearches,
        "bound (retries × breaker)": bound,
        "searches answered": SEARCHES,
        "files owed vectors": status.vectorsPending,
      });
    });
  }

  it("after a storm: the provider back, one sync pays the owed vectors and the index is whole", async () => {
    const { ws, env, calls, server } = await workspace({ cooldownMs: 1500 });
    server.always("POST /embeddings", serverError());
    await okJson<SyncReport>(["sync", "-w", ws], env);
    const stormCalls = calls();
    server.heal("POST /embeddings");
    await new Promise((r) => setTimeout(r, 1700)); // past the pause
    const report = await okJson<SyncReport>(["sync", "-w", ws], env);
    expect(report.embedding.pendingFiles).toBe(0);
    const status = await okJson<MemoryStatus>(["status", "-w", ws], env);
    expect(status.vectorsPending).toBe(0);
    expect(status.degraded).toBe(false);
    const recoveryCalls = calls() - stormCalls;
    // The 41 files' chunks fit a few batches; a half-open trial may cost one more.
    expect(recoveryCalls).toBeLessThanOrEqual(report.embedding.requests + 1);
    const response = await okJson<SearchResponse>(["search", "deploy window", "-w", ws], env);
    expect(response.degraded).toBe(false);
    record("storm: recovery", {
      "requests during storm": stormCalls,
      "requests to recover": recoveryCalls,
      "files owed after": status.vectorsPending,
    });
  });
});
