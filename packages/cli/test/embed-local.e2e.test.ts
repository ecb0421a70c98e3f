import { join } from "node:path";
import type { MemoryStatus, SyncReport } from "@engram/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyBertGguf } from "../../embed-local/test/fixtures/tiny-bert-gguf.js";
import {
  insufficientQuota,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "../../embed-openai/test/openai-wire-server.js";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * The `engram` CLI with the local provider: real node-llama-cpp loading a GGUF model the test
 * generates (no model can be downloaded here), chosen by `auto` from `ENGRAM_LOCAL_MODEL_PATH`, and
 * as the fallback when OpenAI's quota is used up.
 */
describe("engram with a local GGUF model", () => {
  let dir: string;
  let model: string;
  let server: OpenAIWireServer;
  const files = {
    "MEMORY.md": "# Memory\n\nThe deploy window is Tuesday.\n",
    "memory/2026-10-01.md":
      "# 2026-10-01\n\n## 10:00\nfixed the billing bug in the invoice service\n",
    "memory/2026-10-02.md": "# 2026-10-02\n\n## 09:00\n长期记忆存储用户偏好\n",
  };
  const run = async <T>(ws: string, env: NodeJS.ProcessEnv, ...args: string[]): Promise<T> => {
    const { code, stdout, stderr } = await engram([...args, "--json", "--workspace", ws], { env });
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout) as T;
  };

  beforeAll(async () => {
    dir = await tempDir();
    model = await writeTinyBertGguf(join(dir, "models"));
    server = await startOpenAIWireServer({ apiKey: "sk-test-key" });
  });
  afterAll(async () => {
    await server.close();
    await removeDir(dir);
  });

  it("auto picks the local model when ENGRAM_LOCAL_MODEL_PATH names one", async () => {
    const ws = join(dir, "auto");
    await writeFiles(ws, files);
    const env = { ENGRAM_LOCAL_MODEL_PATH: model, OPENAI_API_KEY: "sk-test-key" };
    const report = await run<SyncReport>(ws, env, "sync");
    expect(report.embedding).toMatchObject({ embedded: 3, pendingFiles: 0, fallbackUsed: false });
    expect(report.embedding.provider).toMatch(/^local\/tiny-bert\.gguf\/32@gguf:/);
    const response = await run<{ degraded: boolean; results: Array<Record<string, unknown>> }>(
      ws,
      env,
      "search",
      "用户偏好",
      "--min-score",
      "0",
    );
    expect(response.degraded).toBe(false);
    expect(response.results[0]).toMatchObject({ path: "memory/2026-10-02.md", provider: "local" });
    expect(server.count("POST /embeddings")).toBe(0);
  });

  it("falls back to the local model when OpenAI's quota is used up", async () => {
    const ws = join(dir, "fallback");
    await writeFiles(ws, {
      ...files,
      "engram.config.json": JSON.stringify({
        embedding: {
          provider: "openai",
          fallback: ["local"],
          providers: { local: { modelPath: model } },
        },
      }),
    });
    server.always("POST /embeddings", insufficientQuota());
    const env = { OPENAI_API_KEY: "sk-test-key", ENGRAM_OPENAI_BASE_URL: server.baseUrl };
    const before = server.count("POST /embeddings");
    const report = await run<SyncReport>(ws, env, "sync");
    expect(server.count("POST /embeddings") - before).toBe(1);
    expect(report.embedding).toMatchObject({ embedded: 3, pendingFiles: 0, fallbackUsed: true });
    expect(report.embedding.provider).toMatch(/^local\//);

    const status = await run<MemoryStatus>(ws, env, "status");
    expect(status.providers.map((p) => [p.identity.provider, p.primary, p.active])).toEqual([
      ["openai", true, false],
      ["local", false, true],
    ]);
    expect(status.providers[0]?.circuit.state).toBe("open");

    // The next run (a new process) remembers OpenAI is paused and stays on the local vectors.
    const again = await run<SyncReport>(ws, env, "sync");
    expect(again.rebuilt).toBe(false);
    expect(server.count("POST /embeddings") - before).toBe(1);
    const response = await run<{ results: Array<Record<string, unknown>> }>(
      ws,
      env,
      "search",
      "billing bug",
      "--min-score",
      "0",
    );
    expect(response.results[0]).toMatchObject({ provider: "local", fallback: true });
  });
});
