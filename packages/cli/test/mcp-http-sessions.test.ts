// The Streamable HTTP server in process (the SDK's HTTP client against it): sessions a client
// abandons are closed once idle, while a client with its notification stream open keeps its own.
import { createMemory, createMemoryTools, type Memory } from "@engram/core";
import { memoryStore } from "@engram/store-memory";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { serveMcpHttp } from "../src/mcp/http.js";
import { createEngramMcpServer } from "../src/mcp/server.js";
import { eventually, removeDir, tempDir, writeFiles } from "./helpers.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(idleMs: number) {
  const dir = await tempDir("engram-mcp-http-");
  await writeFiles(dir, { "MEMORY.md": "# Long-term Memory\n\n偏好：简洁\n" });
  const memory: Memory = await createMemory({
    workspace: dir,
    store: memoryStore(),
    embedder: null,
    readConfigFile: false,
  });
  cleanups.push(
    () => removeDir(dir),
    () => memory.close(),
  );
  const tools = createMemoryTools(memory);
  const events: string[] = [];
  const http = await serveMcpHttp({
    host: "127.0.0.1",
    port: 0,
    token: null,
    idleMs,
    newSession: () =>
      createEngramMcpServer({
        tools,
        memory,
        scope: "main",
        readOnly: false,
        info: { name: "engram", version: "0" },
      }),
    onSession: (event, id) => events.push(`${event} ${id}`),
  });
  cleanups.push(() => http.close());
  return { http, events };
}

async function connect(url: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "t", version: "1" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

describe("MCP over HTTP: sessions", () => {
  it("closes a session whose client went away without DELETE; a listening client keeps its own", async () => {
    const { http, events } = await serve(300);
    const listening = await connect(http.url); // keeps its notification stream (GET) open
    const { client, transport } = await connect(http.url);
    await client.listTools();
    expect(http.sessions.size).toBe(2);
    // A client that vanished: its stream stops, nothing more is sent.
    await transport.close();
    expect(await eventually(async () => http.sessions.size === 1, 10_000, 50)).toBe(true);
    expect(events.filter((e) => e.startsWith("close "))).toHaveLength(1);
    // The listening client outlived the idle time and still has its session.
    expect((await listening.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(http.sessions.size).toBe(1);
    const again = await connect(http.url);
    expect((await again.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(http.sessions.size).toBe(2);
  });
});
