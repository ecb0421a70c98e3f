// A runnable LangChain agent on engram memory, with LangChain's scripted fakeModel so it needs no
// API key. From the repo root: pnpm build, then `node packages/langchain/example/main.mjs [workspace]`.
// With a real model: `createAgent({ model: "openai:gpt-4.1-mini", tools })` (needs @langchain/openai).
import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemory } from "@engram/core";
import { EngramRetriever, memoryTools } from "@engram/langchain";
import { memoryStore } from "@engram/store-memory";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";

/** Stores the note, searches for it, then answers from the search result it was handed. */
export function scriptedModel(note) {
  return fakeModel()
    .respondWithTools([{ name: "memory_write", args: { text: note }, id: "w1" }])
    .respondWithTools([
      { name: "memory_search", args: { query: "回滚方案", maxResults: 3 }, id: "s1" },
    ])
    .respond((messages) => {
      const found = JSON.parse(String(messages.at(-1).content));
      const hit = found.results[0];
      return new AIMessage(
        hit
          ? `From memory (${hit.path}:${hit.startLine}-${hit.endLine}): ${hit.snippet.split("\n").at(-1)}`
          : "Memory holds nothing about it.",
      );
    });
}

/** Runs the agent on `workspace`; returns its answer, its tool calls and what the retriever finds. */
export async function run(workspace) {
  await mkdir(workspace, { recursive: true });
  const memory = await createMemory({
    workspace,
    store: memoryStore(),
    embedder: null,
    readConfigFile: false,
  });
  try {
    const note = "回滚方案：保留 v1 热备 24 小时。";
    const agent = createAgent({ model: scriptedModel(note), tools: memoryTools(memory) });
    const { messages } = await agent.invoke({
      messages: [{ role: "user", content: `Remember: ${note}` }],
    });
    const calls = messages
      .flatMap((m) => m.tool_calls ?? [])
      .map((c) => `${c.name} ${JSON.stringify(c.args)}`);
    const docs = await new EngramRetriever({ memory, searchOptions: { maxResults: 2 } }).invoke(
      "热备",
    );
    return { text: String(messages.at(-1).content), calls, docs };
  } finally {
    await memory.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const workspace = process.argv[2] ?? (await mkdtemp(join(tmpdir(), "engram-langchain-")));
  const { text, calls, docs } = await run(workspace);
  for (const call of calls) console.log(`  tool ${call}`);
  console.log(`agent> ${text}`);
  for (const doc of docs) console.log(`retriever: ${doc.id} ${JSON.stringify(doc.pageContent)}`);
  console.log(`(memory in ${workspace})`);
}
