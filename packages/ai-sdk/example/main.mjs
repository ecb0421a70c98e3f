// A runnable AI SDK agent loop on engram memory, with a scripted model so it needs no API key.
// From the repo root: pnpm build, then `node packages/ai-sdk/example/main.mjs [workspace]`.
// With a real model: replace `scriptedModel()` by e.g. `openai("gpt-4.1-mini")` from @ai-sdk/openai.
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryTools } from "@engram/ai-sdk";
import { createMemory } from "@engram/core";
import { memoryStore } from "@engram/store-memory";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";

/**
 * A stand-in model that reads what it is given, like a real one: it stores the user's note,
 * searches for it, then answers from the search result it received (citing path:lines).
 */
export function scriptedModel() {
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 10, text: 10, reasoning: 0 },
  };
  const call = (toolName, input) => ({
    content: [
      { type: "tool-call", toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) },
    ],
    finishReason: { unified: "tool-calls", raw: "tool_calls" },
    usage,
    warnings: [],
  });
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = prompt
        .filter((m) => m.role === "tool")
        .flatMap((m) => m.content)
        .filter((p) => p.type === "tool-result");
      const user =
        prompt.find((m) => m.role === "user")?.content.find((p) => p.type === "text")?.text ?? "";
      if (results.length === 0)
        return call("memory_write", { text: user.replace(/^Remember: /, "") });
      if (results.length === 1) return call("memory_search", { query: "回滚方案", maxResults: 3 });
      const found = results[1].output.value;
      const hit = found.results[0];
      const text = hit
        ? `From memory (${hit.path}:${hit.startLine}-${hit.endLine}): ${hit.snippet.split("\n").at(-1)}`
        : "Memory holds nothing about it.";
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      };
    },
  });
}

/** Runs the loop on `workspace`; returns the answer and the steps' tool calls. */
export async function run(workspace) {
  await mkdir(workspace, { recursive: true });
  const memory = await createMemory({
    workspace,
    store: memoryStore(),
    embedder: null,
    readConfigFile: false,
  });
  try {
    const result = await generateText({
      model: scriptedModel(),
      tools: memoryTools(memory),
      stopWhen: stepCountIs(5),
      prompt: "Remember: 回滚方案：保留 v1 热备 24 小时。",
    });
    return {
      text: result.text,
      calls: result.steps.flatMap((s) =>
        s.toolCalls.map((c) => `${c.toolName} ${JSON.stringify(c.input)}`),
      ),
    };
  } finally {
    await memory.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const workspace = process.argv[2] ?? (await mkdtemp(join(tmpdir(), "engram-ai-sdk-")));
  const { text, calls } = await run(workspace);
  for (const call of calls) console.log(`  tool ${call}`);
  console.log(`agent> ${text}`);
  console.log(`(memory in ${workspace})`);
}
