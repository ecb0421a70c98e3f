import {
  type JsonSchema,
  type MemoryTools,
  type ToolDefinition,
  toolErrorResult,
  toolErrorText,
} from "@engram/core";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** `_meta` key of a failed call's `{ code, message, hint }` (the text says the same in words). */
export const ERROR_META_KEY = "engram/error";

/**
 * The SDK (1.x) takes tool schemas as zod only. Each tool's JSON Schema is core's, derived from
 * its valibot schema; here it rides on a pass-through zod object as metadata, which is what the
 * SDK lists (zod's JSON Schema output takes `.meta()` keys over its own). Validation stays where
 * the schema is defined: core checks every call and answers a bad one with the field, the
 * expectation and an example, as a tool error the model can read.
 */
const edgeSchemas = new WeakMap<JsonSchema, z.ZodType>();
function edgeSchema(json: JsonSchema): z.ZodType {
  let schema = edgeSchemas.get(json);
  if (!schema) {
    // A schema that says nothing of other fields allows them: said explicitly, not as zod's `{}`.
    schema = z.looseObject({}).meta({ additionalProperties: true, ...json });
    edgeSchemas.set(json, schema);
  }
  return schema;
}

/**
 * Registers every tool of `tools` (each `createMemoryTools` defines, so tools added to core appear
 * here untouched) with its title, annotations, input and output schemas. A success returns the
 * result as `structuredContent` and as JSON text; a failure is an MCP tool error (`isError`, the
 * text `CODE: message (hint)`, the same in `_meta["engram/error"]`), never a protocol error.
 */
export function registerMemoryTools(server: McpServer, tools: MemoryTools): void {
  for (const def of tools.definitions) registerTool(server, tools, def);
}

function registerTool(server: McpServer, tools: MemoryTools, def: ToolDefinition): void {
  server.registerTool(
    def.name,
    {
      title: def.title,
      description: def.description,
      inputSchema: edgeSchema(def.parameters as unknown as JsonSchema),
      outputSchema: edgeSchema(def.outputSchema),
      annotations: { title: def.title, ...def.annotations },
    },
    async (args: unknown): Promise<CallToolResult> => {
      try {
        const result = (await tools.call(def.name, args)) as unknown as Record<string, unknown>;
        return {
          content: [{ type: "text", text: JSON.stringify(result, null, 2) }],
          structuredContent: result,
        };
      } catch (error) {
        return toolError(error);
      }
    },
  );
}

/** A failed call as an MCP tool error. */
function toolError(error: unknown): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: toolErrorText(error) }],
    _meta: { [ERROR_META_KEY]: toolErrorResult(error).error },
  };
}
