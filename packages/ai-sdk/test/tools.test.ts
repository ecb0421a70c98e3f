// engram's memory tools in the AI SDK's own tool-calling loop (generateText with stopWhen), driven
// by the SDK's MockLanguageModelV3 scripted to call tools, over a real workspace and store.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createMemory, MEMORY_TOOL_DEFINITIONS, type Memory } from "@engram/core";
import { memoryStore } from "@engram/store-memory";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { memoryTools } from "../src/index.js";

const opened: { memory: Memory; dir: string }[] = [];
afterEach(async () => {
  for (const { memory, dir } of opened.splice(0)) {
    await memory.close();
    await rm(dir, { recursive: true, force: true });
  }
});

async function open(files: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), "engram-ai-sdk-"));
  const memory = await createMemory({
    workspace: dir,
    store: memoryStore(),
    embedder: null,
    readConfigFile: false,
  });
  opened.push({ memory, dir });
  for (const [text, target] of Object.entries(files))
    await memory.appendLongTerm(text, target === "long" ? {} : { file: target });
  return { memory, dir };
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that makes the given tool calls, one per step, then says what the last result was. */
function callsThen(calls: [string, unknown][]) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = prompt.flatMap((m) => (m.role === "tool" ? m.content : []));
      const next = calls[results.length];
      if (next) {
        const [toolName, input] = next;
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: `c${results.length}`,
              toolName,
              input: JSON.stringify(input),
            },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: JSON.stringify(results.at(-1) ?? null) }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      };
    },
  });
}

describe("memoryTools for the AI SDK", () => {
  it("offers every tool core defines, with core's descriptions and JSON Schemas", async () => {
    const { memory } = await open();
    const tools = memoryTools(memory);
    expect(Object.keys(tools)).toEqual(MEMORY_TOOL_DEFINITIONS.map((d) => d.name));
    const model = callsThen([]);
    await generateText({ model, tools, prompt: "hi" });
    const offered = model.doGenerateCalls[0]?.tools ?? [];
    for (const def of MEMORY_TOOL_DEFINITIONS) {
      expect(offered.find((t) => t.name === def.name)).toMatchObject({
        type: "function",
        description: def.description,
        inputSchema: def.parameters,
      });
    }
    expect(Object.keys(memoryTools(memory, { readOnly: true }))).not.toContain("memory_write");
  });

  it("runs write → search → answer in generateText's loop; the write lands in the file", async () => {
    const { memory, dir } = await open({ "用户偏好：先给结论。": "long" });
    const result = await generateText({
      model: callsThen([
        ["memory_write", { text: "Rollback plan: keep v1 warm for 24 hours." }],
        ["memory_search", { query: "rollback plan", maxResults: 2 }],
      ]),
      tools: memoryTools(memory),
      stopWhen: stepCountIs(5),
      prompt: "Remember the rollback plan, then tell me what memory says.",
    });
    expect(result.steps).toHaveLength(3);
    const [write, search] = result.steps.flatMap((s) => s.toolResults);
    expect(write?.output).toMatchObject({
      target: "daily",
      path: expect.stringMatching(/^memory\/\d{4}-\d{2}-\d{2}\.md$/),
    });
    const written = (write?.output ?? {}) as { path: string };
    const log = await readFile(join(dir, written.path), "utf8");
    expect(log).toContain("Rollback plan: keep v1 warm for 24 hours.");
    expect(search?.output).toMatchObject({
      degraded: true,
      results: [expect.objectContaining({ path: written.path })],
    });
    expect(result.text).toContain("keep v1 warm");
  });

  it("hands a bad call back to the model as a tool error naming the field, and the loop goes on", async () => {
    const { memory } = await open();
    const result = await generateText({
      model: callsThen([
        ["memory_search", { query: "x", maxResults: 0 }],
        ["memory_get", { path: "../../etc/passwd" }],
        ["memory_search", { query: "先给结论" }],
      ]),
      tools: memoryTools(memory),
      stopWhen: stepCountIs(5),
      prompt: "search",
    });
    const parts = result.steps.flatMap((s) => s.content).filter((p) => p.type === "tool-error");
    expect(parts.map((p) => String((p as { error: unknown }).error))).toEqual([
      expect.stringMatching(
        /INVALID_ARGUMENT: memory_search: maxResults must be a whole number from 1 to 100/,
      ),
      expect.stringMatching(/PATH_OUTSIDE_WORKSPACE/),
    ]);
    expect(result.steps).toHaveLength(4);
  });

  it("the runnable example answers from what it wrote (node example/main.mjs)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "engram-ai-sdk-example-"));
    try {
      const example = join(import.meta.dirname, "..", "example", "main.mjs");
      const { stdout } = await promisify(execFile)(process.execPath, [example, dir]);
      expect(stdout).toMatch(/tool memory_write .*回滚方案/);
      expect(stdout).toMatch(
        /agent> From memory \(memory\/\d{4}-\d{2}-\d{2}\.md:\d+-\d+\): 回滚方案：保留 v1 热备 24 小时。/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
