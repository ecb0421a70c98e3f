import {
  MEMORY_TOOL_DEFINITIONS,
  type ToolDefinition,
  type ToolParameters,
} from "./tools-definitions.js";

/** An OpenAI Chat Completions `tools` entry. */
export interface OpenAiTool {
  type: "function";
  function: { name: string; description: string; parameters: ToolParameters };
}

/**
 * The tool definitions in the shape OpenAI's Chat Completions API takes as `tools`
 * (`{ type: "function", function: { name, description, parameters } }`); any OpenAI-compatible
 * server (Ollama, vLLM, LM Studio, OpenRouter) takes the same.
 */
export function openAiTools(
  definitions: readonly ToolDefinition[] = MEMORY_TOOL_DEFINITIONS,
): OpenAiTool[] {
  return definitions.map(({ name, description, parameters }) => ({
    type: "function",
    function: { name, description, parameters },
  }));
}

/** An OpenAI Responses API `tools` entry. */
export interface OpenAiResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: ToolParameters;
  /** False: optional fields stay optional (strict mode would make every field required). */
  strict: false;
}

/** The tool definitions in the shape OpenAI's Responses API takes as `tools`. */
export function openAiResponsesTools(
  definitions: readonly ToolDefinition[] = MEMORY_TOOL_DEFINITIONS,
): OpenAiResponsesTool[] {
  return definitions.map(({ name, description, parameters }) => ({
    type: "function",
    name,
    description,
    parameters,
    strict: false,
  }));
}

/** An Anthropic Messages API `tools` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ToolParameters;
}

/** The tool definitions in the shape Anthropic's Messages API takes as `tools`. */
export function anthropicTools(
  definitions: readonly ToolDefinition[] = MEMORY_TOOL_DEFINITIONS,
): AnthropicTool[] {
  return definitions.map(({ name, description, parameters }) => ({
    name,
    description,
    input_schema: parameters,
  }));
}
