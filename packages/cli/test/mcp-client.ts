// Helpers for the `engram mcp` tests: a workspace, the built CLI as a real child process, and the
// MCP SDK's own client over stdio or Streamable HTTP.
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  BIN,
  eventually,
  removeDir,
  stopChild,
  tempDir,
  withoutProviderEnv,
  writeFiles,
} from "./helpers.js";

/** Clean-ups run after each test (register with `cleanups.push`). */
export const cleanups: (() => Promise<void>)[] = [];
export async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** A temp workspace with `files`, removed after the test. */
export async function workspace(files: Record<string, string>): Promise<string> {
  const ws = await tempDir("engram-mcp-");
  cleanups.push(() => removeDir(ws));
  await writeFiles(ws, files);
  return ws;
}

/** The environment without provider keys or ENGRAM_* settings, as plain strings. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(Object.fromEntries(
      Object.entries(withoutProviderEnv(process.env)).filter((e) => e[1] !== undefined),
    ) as Record<string, string>),
    ...extra,
  };
}

/** An SDK client with a helper to call tools. */
export interface TestClient {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

function wrap(client: Client): TestClient {
  cleanups.push(() => client.close());
  return {
    client,
    call: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
}

/** `engram -w ws mcp …args` as a stdio child, connected to an SDK client. */
export async function connectStdio(
  ws: string,
  args: string[] = [],
): Promise<TestClient & { stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "-w", ws, "mcp", ...args],
    env: childEnv(),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "engram-test", version: "1.0.0" });
  await client.connect(transport);
  return { ...wrap(client), stderr: () => stderr };
}

/** A running `engram mcp --http` child and what it printed. */
export interface HttpServerChild {
  child: ChildProcessByStdio<null, Readable, Readable>;
  url: string;
  stderr: () => string;
}

/** Start `engram -w ws mcp --http --port 0 …args`; resolves with the URL it prints. */
export async function startHttp(
  ws: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<HttpServerChild> {
  const child = spawn(process.execPath, [BIN, "-w", ws, "mcp", "--http", "--port", "0", ...args], {
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  cleanups.push(() => stopChild(child));
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const url = await eventually(async () => /at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1], 20_000);
  if (!url) throw new Error(`engram mcp --http printed no URL:\n${stderr}`);
  return { child, url, stderr: () => stderr };
}

/** An SDK client over Streamable HTTP (optionally with request headers, e.g. a bearer token). */
export async function connectHttp(
  url: string,
  headers: Record<string, string> = {},
): Promise<TestClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "engram-http-test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => transport.terminateSession().catch(() => {}));
  return wrap(client);
}

/** The first text content of a tool result, parsed as JSON. */
// biome-ignore lint/suspicious/noExplicitAny: test data read field by field
export function json(result: CallToolResult): any {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("expected text content");
  return JSON.parse(first.text);
}
