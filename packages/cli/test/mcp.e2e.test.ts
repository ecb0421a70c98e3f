// `engram mcp` driven by the MCP SDK's own client over a real stdio child process.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, removeDir, tempDir, withoutProviderEnv, writeFiles } from "./helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(args: string[] = []) {
  const ws = await tempDir("engram-mcp-");
  cleanups.push(() => removeDir(ws));
  await writeFiles(ws, {
    "MEMORY.md": "# Long-term Memory\n\n## 偏好\n\n用户喜欢简洁的中文回答。\n",
  });
  const env = Object.fromEntries(
    Object.entries(withoutProviderEnv(process.env)).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "-w", ws, "mcp", ...args],
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "engram-test", version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { ws, client, call, stderr: () => stderr };
}

const json = (result: CallToolResult) => {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("expected text content");
  return JSON.parse(first.text);
};

describe("engram mcp", () => {
  it("lists the tools with core's JSON Schemas", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_update",
      "memory_consolidate",
    ]);
    expect(tools.find((t) => t.name === "memory_forget")).toMatchObject({
      title: "Forget memory",
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    });
    const write = tools.find((t) => t.name === "memory_write");
    expect(write?.inputSchema).toMatchObject({
      type: "object",
      required: ["text"],
      additionalProperties: false,
      properties: { text: { type: "string" }, target: { default: "daily" } },
    });
    expect(client.getInstructions()).toMatch(/memory_search/);
  });

  it("writes, searches (Chinese included) and gets over stdio; logs only on stderr", async () => {
    const { ws, call, stderr } = await connect();
    const written = await call("memory_write", { text: "部署计划：周五上线，回滚方案已准备。" });
    expect(written.isError).toBeFalsy();
    const where = json(written);
    expect(where).toMatchObject({ path: expect.stringMatching(/^memory\/\d{4}-\d{2}-\d{2}\.md$/) });
    expect(written.structuredContent).toEqual(where);

    const found = await call("memory_search", { query: "回滚方案", minScore: 0 });
    const { results, degraded } = json(found);
    expect(degraded).toBe(true); // no embedding provider in the test environment
    expect(results[0].path).toBe(where.path);
    expect(results[0].startLine).toBeLessThanOrEqual(where.startLine);
    expect(results[0].endLine).toBeGreaterThanOrEqual(where.endLine);
    expect(results[0].snippet).toContain("回滚方案已准备");

    const zh = json(await call("memory_search", { query: "简洁的中文回答" }));
    expect(zh.results[0]?.path).toBe("MEMORY.md");

    const got = json(await call("memory_get", { path: where.path, from: where.endLine, lines: 1 }));
    expect(got.text).toBe("部署计划：周五上线，回滚方案已准备。");
    expect(await readFile(join(ws, where.path), "utf8")).toContain("部署计划");
    expect(stderr()).toMatch(/engram mcp: serving/);
  });

  it("turns bad calls into tool errors and keeps serving", async () => {
    const { ws, call } = await connect();
    const bad = await call("memory_search", { query: "x", maxResults: 0 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^INVALID_ARGUMENT: memory_search: maxResults must be .*\(pass/),
    });
    expect(bad.structuredContent).toMatchObject({ error: { code: "INVALID_ARGUMENT" } });

    const overwrite = await call("memory_write", { text: "x", mode: "overwrite" });
    expect(overwrite.isError).toBe(true);
    expect(JSON.stringify(overwrite.content)).toContain("always appends");

    const outside = await call("memory_get", { path: "../../etc/passwd" });
    expect(outside.structuredContent).toMatchObject({ error: { code: "PATH_OUTSIDE_WORKSPACE" } });
    const missing = await call("memory_get", { path: "memory/nope.md" });
    expect(missing.structuredContent).toMatchObject({ error: { code: "FILE_NOT_FOUND" } });
    const unknown = await call("memory_forget", {});
    expect(unknown.isError).toBe(true);

    // Still alive and nothing was written by the refused calls.
    const ok = await call("memory_get", { path: "MEMORY.md" });
    expect(json(ok).totalLines).toBe(5);
    await expect(readFile(join(ws, "memory", "x.md"), "utf8")).rejects.toThrow();
  });

  it("--read-only leaves memory_write out", async () => {
    const { client, call } = await connect(["--read-only", "--no-watch"]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["memory_search", "memory_get"]);
    expect((await call("memory_write", { text: "x" })).isError).toBe(true);
  });
});
