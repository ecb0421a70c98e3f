// `resources/list` a page at a time: the SDK's McpServer lists a template whole, so engram serves
// the listing itself with MCP's cursor pagination. In process, over the SDK's in-memory transport.
import { createMemory, type Memory } from "@engram/core";
import { inMemoryStore } from "@engram/store-memory";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { registerMemoryResources } from "../src/mcp/resources.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

const FILES = {
  "MEMORY.md": "# Long-term Memory\n\n用户偏好：先给结论。\n",
  "memory/2026-03-04.md": "# 2026-03-04\n\nShipped v2.3.\n",
  "memory/2026-03-05.md": "# 2026-03-05\n\n回滚演练。\n",
  "memory/long-term/项目/决定.md": "# 决定\n\n选用 SQLite。\n",
  "memory/people/lin.md": "# Lin\n\nPrefers advisory locks.\n",
};

const opened: Array<{ memory: Memory; client: Client; ws: string }> = [];
afterEach(async () => {
  for (const { memory, client, ws } of opened.splice(0)) {
    await client.close();
    await memory.close();
    await removeDir(ws);
  }
});

async function connect(pageSize?: number) {
  const ws = await tempDir("engram-pages-");
  await writeFiles(ws, FILES);
  const memory = await createMemory({ workspace: ws, store: inMemoryStore() });
  const server = new McpServer({ name: "engram", version: "0" });
  const resources = registerMemoryResources(server, { files: memory, scope: "main", pageSize });
  const client = new Client({ name: "test", version: "0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  opened.push({ memory, client, ws });
  return { client, resources, ws };
}

describe("resources/list pages", () => {
  it("gives every file once, in order, across pages that end without a cursor", async () => {
    const { client } = await connect(2);
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : undefined);
      pages.push(page.resources.map((r) => r.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    const whole = await (await connect()).client.listResources();
    expect(whole.nextCursor).toBeUndefined();
    expect(pages.flat()).toEqual(whole.resources.map((r) => r.name));
    expect(pages.flat()).toHaveLength(Object.keys(FILES).length);
  });

  it("lists again, for the pages after the first, once a file changed", async () => {
    const { client, resources, ws } = await connect(2);
    const first = await client.listResources();
    await writeFiles(ws, { "memory/2026-03-01.md": "# 2026-03-01\n\n新的一天。\n" });
    resources.changed(["memory/2026-03-01.md"], true);
    const second = await client.listResources({ cursor: first.nextCursor as string });
    const now: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : undefined);
      now.push(...page.resources.map((r) => r.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(now).toContain("memory/2026-03-01.md");
    expect(second.resources.map((r) => r.name)).toEqual(now.slice(2, 4));
  });

  it("refuses a cursor it did not give, naming the fix", async () => {
    const { client } = await connect(2);
    for (const cursor of ["nonsense", Buffer.from('{"offset":-1}').toString("base64url")]) {
      await expect(client.listResources({ cursor })).rejects.toThrow(
        /invalid cursor: pass back the nextCursor/,
      );
    }
  });
});
