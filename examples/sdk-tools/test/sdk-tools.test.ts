// engram's memory tools in the OpenAI SDK's `chat.completions.runTools()` and the Anthropic SDK's
// `beta.messages.toolRunner()`: the real SDKs and loops, against a local server speaking each
// API's wire format with a scripted model behind it, over a real SQLite-indexed workspace.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import { anthropicTools, createMemory, type Memory, openAiTools } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { askWithAnthropic } from "../src/anthropic-runner.js";
import { askWithOpenAi } from "../src/openai-runner.js";
import { type ModelScript, startModelServer } from "./model-wire-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(): Promise<{ memory: Memory; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "engram-sdk-tools-"));
  const memory = await createMemory({
    workspace: dir,
    store: sqliteStore(),
    embedder: null,
    readConfigFile: false,
  });
  cleanups.push(async () => {
    await memory.close();
    await rm(dir, { recursive: true, force: true });
  });
  await memory.appendLongTerm("用户偏好：回答先给结论，再给理由。");
  return { memory, dir };
}

async function server(script: ModelScript) {
  const wire = await startModelServer(script);
  cleanups.push(wire.close);
  return wire;
}

/** Writes the question's note, searches for it, answers from the hit (or names the error). */
const rememberAndRecall: ModelScript = (question, results) => {
  if (results.length === 0) return { tool: "memory_write", input: { text: question } };
  if (results.length === 1) return { tool: "memory_get", input: { path: "../outside.md" } };
  if (results.length === 2)
    return { tool: "memory_search", input: { query: "热备", maxResults: 2 } };
  const error = JSON.parse(results[1]?.text ?? "{}").error;
  const hit = JSON.parse(results[2]?.text ?? "{}").results[0];
  return {
    answer: `${hit.path}:${hit.startLine}-${hit.endLine} ${hit.snippet.split("\n").at(-1)} | ${error.code}`,
  };
};

describe("OpenAI SDK runTools", () => {
  it("sends core's tool definitions and loops write → failed get → search → answer", async () => {
    const { memory, dir } = await open();
    const wire = await server(rememberAndRecall);
    const client = new OpenAI({ apiKey: "test-key", baseURL: `${wire.origin}/v1`, maxRetries: 0 });
    const answer = await askWithOpenAi(client, memory, "回滚方案：保留 v1 热备 24 小时。");
    expect(answer).toMatch(
      /^memory\/\d{4}-\d{2}-\d{2}\.md:\d+-\d+ 回滚方案：保留 v1 热备 24 小时。 \| PATH_OUTSIDE_WORKSPACE$/,
    );
    expect(wire.requests).toHaveLength(4);
    expect(wire.requests[0]?.body.tools).toEqual(openAiTools());
    const path = answer?.split(":")[0] ?? "";
    expect(await readFile(join(dir, path), "utf8")).toContain("回滚方案：保留 v1 热备 24 小时。");
  });
});

describe("Anthropic SDK toolRunner", () => {
  it("sends core's tool definitions and loops write → failed get (is_error) → search → answer", async () => {
    const { memory, dir } = await open();
    const wire = await server(rememberAndRecall);
    const client = new Anthropic({ apiKey: "test-key", baseURL: wire.origin, maxRetries: 0 });
    const answer = await askWithAnthropic(client, memory, "回滚方案：保留 v1 热备 24 小时。");
    expect(answer).toMatch(
      /^memory\/\d{4}-\d{2}-\d{2}\.md:\d+-\d+ 回滚方案：保留 v1 热备 24 小时。 \| PATH_OUTSIDE_WORKSPACE$/,
    );
    expect(wire.requests).toHaveLength(4);
    // Core's definitions as they are; the SDK marks each a client ("custom") tool.
    expect(wire.requests[0]?.body.tools).toEqual(
      anthropicTools().map((t) => ({ type: "custom", ...t })),
    );
    // The failed call went back flagged as an error, with core's error JSON.
    const sent = wire.requests.flatMap((r) => r.body.messages as Array<{ content: unknown }>);
    const errors = sent
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.is_error);
    expect(errors).toEqual([
      expect.objectContaining({
        content: expect.stringMatching(/^\{"error":\{"code":"PATH_OUTSIDE_WORKSPACE"/),
      }),
    ]);
    const path = answer.split(":")[0] ?? "";
    expect(await readFile(join(dir, path), "utf8")).toContain("回滚方案：保留 v1 热备 24 小时。");
  });
});

describe("the runnable example (node dist/main.js)", () => {
  it("answers through either SDK when its base URL points at a compatible server", async () => {
    const { dir } = await open();
    const wire = await server((question, results) =>
      results.length === 0
        ? { tool: "memory_search", input: { query: question } }
        : { answer: `found ${JSON.parse(results[0]?.text ?? "{}").results[0]?.path}` },
    );
    const main = join(import.meta.dirname, "..", "dist", "main.js");
    for (const provider of ["openai", "anthropic"]) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [main, provider, "先给结论", dir],
        {
          env: {
            ...process.env,
            OPENAI_API_KEY: "test-key",
            OPENAI_BASE_URL: `${wire.origin}/v1`,
            ANTHROPIC_API_KEY: "test-key",
            ANTHROPIC_BASE_URL: wire.origin,
            ENGRAM_EXAMPLE_MODEL: "scripted",
          },
        },
      );
      expect(stdout.trim(), provider).toBe("found MEMORY.md");
    }
    expect(wire.requests.map((r) => r.path)).toEqual([
      "/v1/chat/completions",
      "/v1/chat/completions",
      "/v1/messages",
      "/v1/messages",
    ]);
  });
});
