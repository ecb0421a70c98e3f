import { MAX_WRITE_CHARS, type ToolDefinition } from "./tools-definitions.js";

/**
 * The curation tools: edit and forget long-term memory, and consolidate it. Each change is
 * journaled, archives what it replaces or removes, and can be undone (`engram forget --undo`,
 * `engram update --undo`, `engram consolidate undo`). Not offered read-only or in group scope.
 */
export const CURATION_TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: "memory_forget",
    title: "Forget memory",
    description:
      "Remove lines from memory: give `target` as path:start-end (as memory_search cites it), or " +
      "`query` to forget every entry containing that text. The lines are archived with the reason " +
      "(never deleted) and not added back by consolidation; daily logs are touched only with " +
      "fromLog. Returns what was forgotten.",
    parameters: {
      type: "object",
      properties: {
        target: {
          type: "string",
          minLength: 1,
          description: "Lines to forget, e.g. 'MEMORY.md:12-14'.",
        },
        query: {
          type: "string",
          minLength: 1,
          description: "Forget every entry containing this text.",
        },
        reason: { type: "string", minLength: 1, description: "Why (kept in the archive)." },
        fromLog: {
          type: "boolean",
          description: "Allow striking lines from a daily log (default false).",
        },
      },
      required: [],
      additionalProperties: false,
    },
    annotations: {
      title: "Forget memory",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  },
  {
    name: "memory_update",
    title: "Update long-term memory",
    description:
      "Replace lines or a section of a long-term memory file (MEMORY.md, memory/long-term/**) by " +
      "new text: `target` is path:start-end, or path#Heading for the body of a section. The old " +
      "text is archived; the answer lists facts (names, numbers, dates) the new text left out.",
    parameters: {
      type: "object",
      properties: {
        target: {
          type: "string",
          minLength: 1,
          description: "'MEMORY.md:12-14' (lines) or 'MEMORY.md#Preferences' (a section's body).",
        },
        text: {
          type: "string",
          minLength: 1,
          maxLength: MAX_WRITE_CHARS,
          description: "The new Markdown text.",
        },
        reason: { type: "string", minLength: 1, description: "Why (kept in the archive)." },
      },
      required: ["target", "text"],
      additionalProperties: false,
    },
    annotations: {
      title: "Update long-term memory",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    },
  },
  {
    name: "memory_consolidate",
    title: "Consolidate memory",
    description:
      "Curate long-term memory from the notes written since the last pass: add lasting facts, " +
      "merge duplicates, archive what newer notes contradict. mode 'plan' (default) shows every " +
      "operation with its sources and what engram refused; 'apply' carries it out (journaled, " +
      "reported in memory/dreams/, undoable).",
    parameters: {
      type: "object",
      properties: {
        mode: {
          type: "string",
          enum: ["plan", "apply"],
          default: "plan",
          description: "'plan' or 'apply'.",
        },
        maxTokens: {
          type: "integer",
          minimum: 1,
          description: "Most tokens the pass may spend with the language model.",
        },
      },
      required: [],
      additionalProperties: false,
    },
    annotations: {
      title: "Consolidate memory",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
];
