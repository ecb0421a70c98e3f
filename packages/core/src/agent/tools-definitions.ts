import { type JsonSchema, jsonSchemaOf } from "./tool-schema.js";
import type { MemoryToolSpec, ToolAnnotations } from "./tool-spec.js";
import { MEMORY_TOOL_SPECS, type MemoryToolName } from "./tool-specs.js";

export type { JsonSchema };

/** The parameters of a tool: a JSON Schema object with named properties. */
export interface ToolParameters {
  readonly type: "object";
  readonly properties: { readonly [name: string]: JsonSchema };
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/**
 * A tool an agent can call, as plain JSON: `name`, `description` and JSON Schema `parameters`
 * (the shape OpenAI-style function calling takes; MCP calls it `inputSchema`), plus MCP's `title`,
 * `annotations` and `outputSchema` (the JSON Schema of the tool's result). Derived from the tool's
 * valibot schemas, which also validate every call: there is one definition of each argument.
 */
export interface ToolDefinition {
  readonly name: MemoryToolName;
  readonly title: string;
  readonly description: string;
  readonly parameters: ToolParameters;
  readonly outputSchema: JsonSchema;
  readonly annotations: ToolAnnotations;
}

/** The {@link ToolDefinition} of a tool spec. */
export function toolDefinition(spec: MemoryToolSpec): ToolDefinition {
  return {
    name: spec.name as MemoryToolName,
    title: spec.title,
    description: spec.description,
    parameters: parametersOf(spec),
    outputSchema: jsonSchemaOf(spec.result),
    annotations: spec.annotations,
  };
}

/** The definitions of every memory tool (`memory_search`, `memory_get`, `memory_write`, …). */
export const MEMORY_TOOL_DEFINITIONS: readonly ToolDefinition[] =
  MEMORY_TOOL_SPECS.map(toolDefinition);

/** The JSON Schema of a tool's arguments, `required` always present (empty when nothing is). */
function parametersOf(spec: MemoryToolSpec): ToolParameters {
  const schema = jsonSchemaOf(spec.args) as unknown as ToolParameters;
  return { ...schema, required: schema.required ?? [] };
}
