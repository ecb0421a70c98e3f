// engram's memory in LangChain's own agent loop (createAgent), driven by LangChain's scripted
// fakeModel, over a real workspace and store; and the retriever through Runnable.invoke.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createMemory, MEMORY_TOOL_DEFINITIONS, type Memory } from "@engram/core";
import { memoryStore } from "@engram/store-memory";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { EngramRetriever, memoryTools } from "../src/index.js";

const opened: { memory: Memory; dir: string }[] = [];
afterEach(async () => {
  for (const { memory, dir } of opened.splice(0)) {
    await memory.close();
    await rm(dir, { recursive: true, force: true });
  }
});

async function open() {
  const dir = await mkdtemp(join(tmpdir(), "engram-langchain-"));
  const memory = await createMemory({
    workspace: dir,
    store: memoryStore(),
    embedder: null,
    readConfigFile: false,
  });
  opened.push({ memory, dir });
  await memory.appendLongTerm("用户偏好：回答先给结论，再给理由。");
  await memory.appendDaily("Deploy window moved to Thursday 14:00.");
  return { memory, dir };
}

const toolMessages = (messages: BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe("memoryTools for LangChain", () => {
  it("are structured tools with core's names, descriptions and JSON Schemas", async () => {
    const { memory } = await open();
    const tools = memoryTools(memory);
    expect(tools.map((t) => t.name)).toEqual(MEMORY_TOOL_DEFINITIONS.map((d) => d.name));
    for (const [i, def] of MEMORY_TOOL_DEFINITIONS.entries()) {
      expect(tools[i]?.description).toBe(def.description);
      expect(tools[i]?.schema).toEqual(def.parameters);
    }
    expect(memoryTools(memory, { readOnly: true }).map((t) => t.name)).not.toContain(
      "memory_write",
    );
  });

  it("run write → search → answer in createAgent's loop; results come back as text and artifact", async () => {
    const { memory, dir } = await open();
    const model = fakeModel()
      .respondWithTools([
        {
          name: "memory_write",
          args: { text: "Rollback plan: keep v1 warm for 24 hours." },
          id: "w",
        },
      ])
      .respondWithTools([
        { name: "memory_search", args: { query: "rollback plan", maxResults: 2 }, id: "s" },
      ])
      .respond(
        (messages) =>
          new AIMessage(
            `answer: ${JSON.parse(String(messages.at(-1)?.content)).results[0].snippet}`,
          ),
      );
    const agent = createAgent({ model, tools: memoryTools(memory) });
    const { messages } = await agent.invoke({
      messages: [{ role: "user", content: "remember and recall" }],
    });
    const [write, search] = toolMessages(messages);
    expect(write?.artifact).toMatchObject({ target: "daily", created: false });
    const log = await readFile(join(dir, write?.artifact.path), "utf8");
    expect(log).toContain("Rollback plan: keep v1 warm for 24 hours.");
    expect(JSON.parse(String(search?.content))).toEqual(search?.artifact);
    expect(search?.artifact.results[0]).toMatchObject({ path: write?.artifact.path });
    expect(String(messages.at(-1)?.content)).toMatch(/^answer: .*keep v1 warm/s);
    // The model was handed core's schemas through bindTools.
    expect(model.calls).toHaveLength(3);
  });

  it("hand a failed call back to the model as an error naming the field", async () => {
    const { memory } = await open();
    const model = fakeModel()
      .respondWithTools([{ name: "memory_get", args: { path: "../../etc/passwd" }, id: "g" }])
      .respond((messages) => new AIMessage(`saw: ${String(messages.at(-1)?.content)}`));
    const agent = createAgent({ model, tools: memoryTools(memory) });
    const { messages } = await agent.invoke({ messages: [{ role: "user", content: "read it" }] });
    const [failed] = toolMessages(messages);
    expect(failed?.status).toBe("error");
    expect(String(failed?.content)).toMatch(/PATH_OUTSIDE_WORKSPACE/);
    expect(String(messages.at(-1)?.content)).toMatch(/^saw: .*PATH_OUTSIDE_WORKSPACE/s);
  });
});

describe("EngramRetriever", () => {
  it("returns cited Documents through Runnable.invoke (Chinese too), scope options applied", async () => {
    const { memory } = await open();
    const retriever = new EngramRetriever({ memory, searchOptions: { maxResults: 3 } });
    const [doc] = await retriever.invoke("先给结论");
    expect(doc?.pageContent).toContain("回答先给结论");
    expect(doc?.id).toBe(`MEMORY.md:${doc?.metadata.startLine}-${doc?.metadata.endLine}`);
    expect(doc?.metadata).toMatchObject({
      path: "MEMORY.md",
      tier: "long",
      source: "memory",
      degraded: true,
    });
    const group = new EngramRetriever({ memory, searchOptions: { scope: "group" } });
    expect(await group.invoke("先给结论")).toEqual([]); // MEMORY.md stays in the main scope
    const [deploy] = await group.invoke("deploy window");
    expect(deploy?.metadata.path).toMatch(/^memory\/\d{4}-\d{2}-\d{2}\.md$/);
  });

  it("the runnable example answers from what it wrote (node example/main.mjs)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "engram-langchain-example-"));
    try {
      const example = join(import.meta.dirname, "..", "example", "main.mjs");
      const { stdout } = await promisify(execFile)(process.execPath, [example, dir]);
      expect(stdout).toMatch(/tool memory_write .*回滚方案/);
      expect(stdout).toMatch(
        /agent> From memory \(memory\/\d{4}-\d{2}-\d{2}\.md:\d+-\d+\): 回滚方案：保留 v1 热备 24 小时。/,
      );
      expect(stdout).toMatch(/retriever: memory\/\d{4}-\d{2}-\d{2}\.md:\d+-\d+ .*热备/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
