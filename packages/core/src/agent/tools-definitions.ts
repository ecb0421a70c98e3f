import { TIERS } from "../tier.js";

/** A JSON Schema (draft 2020-12) fragment, as plain JSON. */
export type JsonSchema = { readonly [key: string]: unknown };

/** The parameters of a tool: a JSON Schema object with named properties. */
export interface ToolParameters {
  readonly type: "object";
  readonly properties: { readonly [name: string]: JsonSchema };
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/**
 * A tool an agent can call, in the shape OpenAI-style function calling and MCP both take:
 * `name`, `description` and JSON Schema `parameters` (MCP calls it `inputSchema`).
 */
export interface ToolDefinition {
  readonly name: MemoryToolName;
  readonly description: string;
  readonly parameters: ToolParameters;
  /** A human-readable name (MCP `title`). */
  readonly title?: string;
  /** Hints about the tool's behaviour, as MCP names them (`ToolAnnotations`). */
  readonly annotations?: ToolAnnotations;
}

/** MCP's tool annotations: hints for clients, never guarantees. */
export interface ToolAnnotations {
  readonly title?: string;
  /** The tool changes nothing. */
  readonly readOnlyHint?: boolean;
  /** A change may remove or overwrite what is there (meaningful when not read-only). */
  readonly destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  readonly idempotentHint?: boolean;
  /** It reaches entities outside engram (e.g. a remote model). */
  readonly openWorldHint?: boolean;
}

/** The names of engram's memory tools. */
export type MemoryToolName =
  | "memory_search"
  | "memory_get"
  | "memory_write"
  | "memory_forget"
  | "memory_update"
  | "memory_consolidate";

/** Most characters one `memory_write` call may append (a guard against runaway output). */
export const MAX_WRITE_CHARS = 50_000;

const memorySearch: ToolDefinition = {
  name: "memory_search",
  description:
    "Search the agent's Markdown memory (MEMORY.md and memory/**/*.md) with hybrid keyword + " +
    "semantic search. Returns snippets (at most ~700 characters) with the file path, 1-based line " +
    "range and score, plus the embedding provider/model and whether the search degraded to " +
    "keywords only. Use memory_get with a result's path and lines to read more.",
  parameters: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        description: "What to look for, in any language (e.g. 'deploy rollback plan', '部署计划').",
      },
      maxResults: {
        type: "integer",
        minimum: 1,
        maximum: 100,
        description: "Most results to return (default 6).",
      },
      minScore: {
        type: "number",
        minimum: 0,
        maximum: 1,
        description: "Drop results scoring below this (0 to 1; default from the config).",
      },
      tiers: {
        type: "array",
        items: { type: "string", enum: [...TIERS] },
        description: "Memory tiers to search (default short, mid, long; archive only on request).",
      },
      sources: {
        type: "array",
        items: { type: "string", minLength: 1 },
        description: "Sources to search, e.g. ['memory'] or ['sessions'] (default all).",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

const memoryGet: ToolDefinition = {
  name: "memory_get",
  description:
    "Read exact lines of a memory file (workspace-relative path such as MEMORY.md or " +
    "memory/2026-01-02.md), read from the file itself. Optionally start at line `from` " +
    "(1-based) and return `lines` lines. Returns the text, the line range and the file's total lines.",
  parameters: {
    type: "object",
    properties: {
      path: {
        type: "string",
        minLength: 1,
        description: "Workspace-relative path from a memory_search result, e.g. 'MEMORY.md'.",
      },
      from: { type: "integer", minimum: 1, description: "First line to return (1-based)." },
      lines: { type: "integer", minimum: 1, description: "How many lines to return." },
    },
    required: ["path"],
    additionalProperties: false,
  },
};

const memoryWrite: ToolDefinition = {
  name: "memory_write",
  description:
    "Append a note to memory. Always appends a new timestamped entry; existing text is never " +
    "changed or removed. target 'daily' (default) is today's log memory/YYYY-MM-DD.md (running " +
    "notes, context); 'long-term' is MEMORY.md (decisions, preferences, lasting facts); or name a " +
    "memory file such as 'memory/mid-term/projects/apollo/status.md'.",
  parameters: {
    type: "object",
    properties: {
      text: {
        type: "string",
        minLength: 1,
        maxLength: MAX_WRITE_CHARS,
        description: "The Markdown text of the entry.",
      },
      target: {
        type: "string",
        minLength: 1,
        default: "daily",
        description:
          "'daily' (today's log, default), 'long-term' (MEMORY.md), or a workspace-relative " +
          "memory file path (MEMORY.md or a .md file under memory/).",
      },
    },
    required: ["text"],
    additionalProperties: false,
  },
};

/** The definitions of `memory_search`, `memory_get` and `memory_write`, in that order. */
export const MEMORY_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  memorySearch,
  memoryGet,
  memoryWrite,
];

/** An OpenAI Chat Completions `tools` entry. */
export interface OpenAiTool {
  type: "function";
  function: { name: string; description: string; parameters: ToolParameters };
}

/**
 * The tool definitions in the shape OpenAI's Chat Completions API takes as `tools`
 * (`{ type: "function", function: { name, description, parameters } }`).
 */
export function openAiTools(
  definitions: readonly ToolDefinition[] = MEMORY_TOOL_DEFINITIONS,
): OpenAiTool[] {
  return definitions.map(({ name, description, parameters }) => ({
    type: "function",
    function: { name, description, parameters },
  }));
}
