// `engram mcp` driven by the MCP SDK's own client over a real stdio child process: the tools.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { MEMORY_TOOL_DEFINITIONS } from "@engram/core";
import { afterEach, describe, expect, it } from "vitest";
import { engram, eventually } from "./helpers.js";
import { connectStdio, json, runCleanups, workspace } from "./mcp-client.js";

afterEach(runCleanups);

const FILES = { "MEMORY.md": "# Long-term Memory\n\n## 偏好\n\n用户喜欢简洁的中文回答。\n" };

describe("engram mcp (stdio): tools", () => {
  it("lists every tool core defines, with title, annotations and core's schemas", async () => {
    const { client } = await connectStdio(await workspace(FILES));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(MEMORY_TOOL_DEFINITIONS.map((d) => d.name));
    for (const def of MEMORY_TOOL_DEFINITIONS) {
      const tool = tools.find((t) => t.name === def.name);
      expect(tool?.title).toBe(def.title);
      expect(tool?.annotations).toMatchObject(def.annotations);
      // The one definition: what the client sees is core's JSON Schema (the SDK adds `$schema`).
      const { $schema: _, ...input } = (tool?.inputSchema ?? {}) as Record<string, unknown>;
      expect(input).toEqual(def.parameters);
      const {
        $schema: __,
        additionalProperties,
        ...output
      } = (tool?.outputSchema ?? {}) as Record<string, unknown>;
      expect(output).toEqual(def.outputSchema);
      expect(additionalProperties).toBe(true);
    }
    const write = tools.find((t) => t.name === "memory_write");
    expect(write?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(write?.inputSchema).toMatchObject({
      required: ["text"],
      additionalProperties: false,
      properties: { text: { type: "string" }, target: { default: "daily" } },
    });
    expect(client.getInstructions()).toMatch(/memory_search/);
  });

  it("writes, searches (Chinese included) and gets; results are structured; logs only on stderr", async () => {
    const ws = await workspace(FILES);
    const { call, stderr } = await connectStdio(ws);
    // The SDK client checks structuredContent against each tool's outputSchema on every call.
    const written = await call("memory_write", { text: "部署计划：周五上线，回滚方案已准备。" });
    expect(written.isError).toBeFalsy();
    const where = json(written);
    expect(where).toMatchObject({ path: expect.stringMatching(/^memory\/\d{4}-\d{2}-\d{2}\.md$/) });
    expect(written.structuredContent).toEqual(where);

    const found = await call("memory_search", { query: "回滚方案", minScore: 0 });
    const { results, degraded } = json(found);
    expect(found.structuredContent).toEqual(json(found));
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

  it("searches from core's in-memory index and sees what another process indexed meanwhile", async () => {
    const ws = await workspace(FILES);
    // No watcher: only the index tells this server about the other process's note.
    const { call, stderr } = await connectStdio(ws, ["--no-watch"]);
    // After its first sync the server warms up: the index loaded, one search run, not recorded.
    const ready = await eventually(async () =>
      /ready to search from the index in memory/.test(stderr()),
    );
    expect(ready, stderr()).toBe(true);
    await expect(readFile(join(ws, ".engram/lifecycle/recall.json"))).rejects.toThrow(/ENOENT/);
    await expect(readdir(join(ws, ".engram/lifecycle/recall-events"))).rejects.toThrow(/ENOENT/);
    const search = async (query: string) =>
      json(await call("memory_search", { query, minScore: 0 })).results as Array<{
        path: string;
        snippet: string;
      }>;
    // The first searches load the index (and wait for the server's first sync).
    const loaded = eventually(
      async () => (await search("简洁的中文回答"))[0]?.path === "MEMORY.md",
    );
    expect(await loaded).toBe(true);
    const added = await engram([
      "add",
      "备份策略：每晚三点增量备份到对象存储。",
      "--workspace",
      ws,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect((await search("增量备份"))[0]?.snippet).toContain("每晚三点增量备份");
    expect((await search("简洁的中文回答"))[0]?.path).toBe("MEMORY.md");
  });

  it("turns bad calls into tool errors (code in _meta) and keeps serving", async () => {
    const ws = await workspace(FILES);
    const { call } = await connectStdio(ws);
    const bad = await call("memory_search", { query: "x", maxResults: 0 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^INVALID_ARGUMENT: memory_search: maxResults must be .*\(pass/),
    });
    expect(bad._meta?.["engram/error"]).toMatchObject({ code: "INVALID_ARGUMENT" });
    // Models often send null for optional fields: accepted, as core accepts them.
    expect((await call("memory_search", { query: "简洁", maxResults: null })).isError).toBeFalsy();

    const overwrite = await call("memory_write", { text: "x", mode: "overwrite" });
    expect(overwrite.isError).toBe(true);
    expect(JSON.stringify(overwrite.content)).toContain("always appends");

    const outside = await call("memory_get", { path: "../../etc/passwd" });
    expect(outside._meta?.["engram/error"]).toMatchObject({ code: "PATH_OUTSIDE_WORKSPACE" });
    const missing = await call("memory_get", { path: "memory/nope.md" });
    expect(missing._meta?.["engram/error"]).toMatchObject({ code: "FILE_NOT_FOUND" });
    const unknown = await call("memory_forget_all", {});
    expect(unknown.isError).toBe(true);

    // Still alive and nothing was written by the refused calls.
    const ok = await call("memory_get", { path: "MEMORY.md" });
    expect(json(ok).totalLines).toBe(5);
    await expect(readFile(join(ws, "memory", "x.md"), "utf8")).rejects.toThrow();
  });

  it("--read-only serves only the tools that change nothing, and no flush prompt", async () => {
    const { client, call } = await connectStdio(await workspace(FILES), [
      "--read-only",
      "--no-watch",
    ]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      MEMORY_TOOL_DEFINITIONS.filter((d) => d.annotations.readOnlyHint).map((d) => d.name),
    );
    expect(tools.every((t) => t.annotations?.readOnlyHint)).toBe(true);
    expect((await call("memory_write", { text: "x" })).isError).toBe(true);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["recall"]);
  });
});
