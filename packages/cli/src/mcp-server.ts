import { type MemoryTools, toolErrorResult } from "@engram/core";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** What the MCP server tells clients about itself and how to use its tools. */
const INSTRUCTIONS =
  "engram is this agent's memory: Markdown files (MEMORY.md, memory/YYYY-MM-DD.md, memory/**). " +
  "Call memory_search before answering questions about prior work, decisions, people or " +
  "preferences; read more with memory_get (path and lines from a result). Store lasting notes " +
  "with memory_write: it only appends.";

/**
 * An MCP server (low-level SDK `Server`) exposing engram's memory tools: `tools/list` serves core's
 * JSON Schemas as they are, `tools/call` runs them. A failed call is an MCP tool error
 * (`isError: true`, the message and its hint as text, the code in `structuredContent`), never a
 * protocol error or a crash, so the model can read it and correct the call.
 */
export function createMcpServer(tools: MemoryTools, info: { name: string; version: string }) {
  const server = new Server(info, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.definitions.map((d) => ({
      name: d.name,
      description: d.description,
      inputSchema: d.parameters as unknown as { type: "object"; [key: string]: unknown },
      ...(d.title ? { title: d.title } : {}),
      ...(d.annotations ? { annotations: { ...d.annotations } } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      const result = await tools.call(request.params.name, request.params.arguments ?? {});
      return {
        content: [{ type: "text", text: JSON.stringify(result, null, 2) }],
        structuredContent: result as unknown as Record<string, unknown>,
      };
    } catch (error) {
      const { error: e } = toolErrorResult(error);
      return {
        isError: true,
        content: [{ type: "text", text: `${e.code}: ${e.message}${e.hint ? ` (${e.hint})` : ""}` }],
        structuredContent: { error: e },
      };
    }
  });
  return server;
}
