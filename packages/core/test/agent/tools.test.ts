import { readFile } from "node:fs/promises";
import path from "node:path";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  answerToolCall,
  anthropicTools,
  createMemoryTools,
  MEMORY_TOOL_DEFINITIONS,
  MEMORY_TOOL_SPECS,
  openAiResponsesTools,
  openAiTools,
  parseToolArgs,
  toolErrorResult,
  toolErrorText,
} from "../../src/agent/index.js";
import { EngramError } from "../../src/errors.js";
import { fixedClock } from "../../src/workspace/clock.js";
import { tempDir, writeFiles } from "../workspace/helpers.js";
import { fileMemory } from "./host.js";

const clock = fixedClock("2026-03-04T10:00:00");

describe("tool definitions", () => {
  it("are JSON Schema objects every property of which is described, required ones listed", () => {
    expect(MEMORY_TOOL_DEFINITIONS.map((d) => d.name)).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_update",
      "memory_consolidate",
    ]);
    for (const def of MEMORY_TOOL_DEFINITIONS) {
      expect(def.parameters.type).toBe("object");
      expect(def.parameters.additionalProperties).toBe(false);
      for (const key of def.parameters.required)
        expect(def.parameters.properties).toHaveProperty(key);
      for (const prop of Object.values(def.parameters.properties)) {
        expect(typeof prop.description).toBe("string");
      }
      // Plain JSON: survives a round trip unchanged.
      expect(JSON.parse(JSON.stringify(def))).toEqual(def);
    }
  });

  it("carry a title, MCP annotations and an output schema, derived from the valibot schemas", () => {
    const byName = Object.fromEntries(MEMORY_TOOL_DEFINITIONS.map((d) => [d.name, d]));
    expect(byName.memory_search?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.memory_write?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false, // it only appends
      idempotentHint: false,
    });
    for (const def of MEMORY_TOOL_DEFINITIONS) {
      expect(def.title).toMatch(/^[A-Z]/);
      // Only consolidation may send memory beyond the workspace (to a configured model).
      expect(def.annotations.openWorldHint).toBe(def.name === "memory_consolidate");
      expect(def.outputSchema).toMatchObject({ type: "object", properties: expect.any(Object) });
      // No `$schema`, no engram-only keys (error wording stays out of the schema).
      expect(JSON.stringify(def)).not.toMatch(/\$schema|"expect"/);
    }
    // The one definition of each argument: constraints the validator checks appear in the schema.
    expect(byName.memory_search?.parameters.properties.maxResults).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 100,
    });
    expect(byName.memory_write?.parameters.properties.target).toMatchObject({ default: "daily" });
    expect(byName.memory_write?.parameters.properties.text).toMatchObject({ maxLength: 50_000 });
  });

  it("come in Anthropic's and OpenAI Responses' shapes", () => {
    const [search] = MEMORY_TOOL_DEFINITIONS;
    expect(anthropicTools()[0]).toEqual({
      name: "memory_search",
      description: search?.description,
      input_schema: search?.parameters,
    });
    expect(openAiResponsesTools()[0]).toEqual({
      type: "function",
      name: "memory_search",
      description: search?.description,
      parameters: search?.parameters,
      strict: false,
    });
  });

  it("come in OpenAI's function-calling shape", () => {
    const [search] = openAiTools();
    expect(search).toEqual({
      type: "function",
      function: {
        name: "memory_search",
        description: expect.any(String),
        parameters: MEMORY_TOOL_DEFINITIONS[0]?.parameters,
      },
    });
  });
});

describe("argument validation", () => {
  const invalid = (name: Parameters<typeof parseToolArgs>[0], args: unknown) => {
    try {
      parseToolArgs(name, args);
    } catch (error) {
      expect(error).toBeInstanceOf(EngramError);
      expect((error as EngramError).code).toBe("INVALID_ARGUMENT");
      return (error as EngramError).describe();
    }
    throw new Error("expected INVALID_ARGUMENT");
  };

  it("names the tool and the field, with an example", () => {
    expect(invalid("memory_search", {})).toMatch(/memory_search: query is required \(pass query/);
    expect(invalid("memory_search", { query: "  " })).toMatch(/query must be non-empty text/);
    expect(invalid("memory_search", { query: "x", maxResults: 2.5 })).toMatch(
      /maxResults must be a whole number from 1 to 100, got 2.5/,
    );
    expect(invalid("memory_search", { query: "x", minScore: 2 })).toMatch(/minScore/);
    expect(invalid("memory_search", { query: "x", tiers: ["long", "forever"] })).toMatch(
      /tiers\.1 must be a list of tiers \(short, mid, long, archive\), got \["long","forever"\]/,
    );
    expect(invalid("memory_get", { path: "MEMORY.md", from: 0 })).toMatch(/from must be/);
    expect(invalid("memory_write", { text: "x", mode: "overwrite" })).toMatch(
      /unknown field "mode".*always appends/,
    );
    expect(invalid("memory_write", { text: "x".repeat(50_001) })).toMatch(/at most 50000/);
    expect(invalid("memory_get", ["MEMORY.md"])).toMatch(/must be a JSON object/);
  });

  it("treats null optional fields as absent and defaults the write target", () => {
    expect(
      parseToolArgs("memory_search", { query: "部署", maxResults: null, tiers: null, minScore: 0 }),
    ).toEqual({ query: "部署", minScore: 0 });
    expect(parseToolArgs("memory_write", { text: "笔记" })).toEqual({
      text: "笔记",
      target: "daily",
    });
  });
});

describe("createMemoryTools over the workspace files", () => {
  it("appends to today's log, MEMORY.md or a named file, and reads lines back", async () => {
    const ws = await tempDir("engram-tools-");
    const tools = createMemoryTools(fileMemory(ws, clock));
    const daily = await tools.call("memory_write", { text: "今天讨论了发布计划" });
    expect(daily).toEqual({
      path: "memory/2026-03-04.md",
      startLine: 3,
      endLine: 5,
      created: true,
      target: "daily",
    });
    // Arguments as JSON text, the way function-calling APIs hand them over.
    const long = await tools.call("memory_write", '{"text":"偏好：简洁","target":"long-term"}');
    expect(long).toMatchObject({ path: "MEMORY.md", target: "long-term" });
    const named = await tools.call("memory_write", {
      text: "status: green",
      target: "memory/mid-term/projects/apollo/status.md",
    });
    expect(named).toMatchObject({
      path: "memory/mid-term/projects/apollo/status.md",
      target: "file",
    });
    const got = await tools.call("memory_get", { path: daily.path, from: daily.endLine, lines: 1 });
    expect(got).toMatchObject({
      text: "今天讨论了发布计划",
      startLine: 5,
      endLine: 5,
      totalLines: 6,
    });
    expect(await readFile(path.join(ws, "MEMORY.md"), "utf8")).toContain("偏好：简洁");
    // Every result is what the tool's output schema says (MCP clients validate it).
    const [, getSpec, writeSpec] = MEMORY_TOOL_SPECS;
    for (const result of [daily, long, named]) v.parse(writeSpec.result, result);
    v.parse(getSpec.result, got);
  });

  it("refuses unknown tools, writes outside memory and (read-only) memory_write", async () => {
    const ws = await tempDir("engram-tools-");
    await writeFiles(ws, { "notes.md": "not memory\n" });
    const tools = createMemoryTools(fileMemory(ws, clock));
    await expect(tools.call("memory_delete", {})).rejects.toThrow(/unknown tool "memory_delete"/);
    await expect(
      tools.call("memory_write", { text: "x", target: "notes.md" }),
    ).rejects.toMatchObject({
      code: "PATH_NOT_ALLOWED",
    });
    await expect(tools.call("memory_get", { path: "../etc/passwd" })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    await expect(tools.call("memory_get", "{oops")).rejects.toThrow(/not valid JSON/);
    const readOnly = createMemoryTools(fileMemory(ws, clock), { readOnly: true });
    expect(readOnly.definitions.map((d) => d.name)).toEqual(["memory_search", "memory_get"]);
    const error = await readOnly.call("memory_write", { text: "x" }).catch((e: unknown) => e);
    expect(toolErrorResult(error)).toEqual({
      error: {
        code: "INVALID_ARGUMENT",
        message: 'unknown tool "memory_write"',
        hint: "call one of memory_search, memory_get",
      },
    });
    expect(toolErrorText(error)).toBe(
      'INVALID_ARGUMENT: unknown tool "memory_write" (call one of memory_search, memory_get)',
    );
    // The never-throwing answer for hand-written loops.
    expect(await answerToolCall(readOnly, "memory_get", { path: "MEMORY.md", lines: 0 })).toEqual({
      isError: true,
      text: expect.stringMatching(
        /^\{"error":\{"code":"INVALID_ARGUMENT","message":"memory_get: lines must be/,
      ),
    });
    await writeFiles(ws, { "MEMORY.md": "# 记忆\n" });
    expect(await answerToolCall(readOnly, "memory_get", '{"path":"MEMORY.md"}')).toMatchObject({
      isError: false,
      result: { text: "# 记忆", totalLines: 1 },
    });
    expect(toolErrorResult(new Error("boom"))).toEqual({
      error: { code: "UNEXPECTED", message: "boom" },
    });
  });
});
