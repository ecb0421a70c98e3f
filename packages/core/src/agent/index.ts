/**
 * Agent integration: the memory tools (`memory_search`, `memory_get`, `memory_write`) as JSON
 * Schemas with handlers, and the pre-compaction memory flush policy.
 */
export {
  buildMemoryContext,
  type ContextSource,
  DEFAULT_CONTEXT_CHARS,
  getMemoryContext,
  getRecentMemories,
  type MemoryContext,
  type MemoryContextOptions,
  type MemoryContextSection,
} from "./context.js";
export {
  createFlushPolicy,
  FLUSH_DEFAULTS,
  type FlushDecision,
  type FlushHost,
  type FlushPolicy,
  type FlushPolicyOptions,
  type FlushReason,
  type FlushWriteResult,
} from "./flush-policy.js";
export {
  DEFAULT_FLUSH_SYSTEM_PROMPT,
  DEFAULT_FLUSH_USER_PROMPT,
  isNoReply,
  NO_REPLY,
} from "./flush-prompts.js";
export { SESSIONS_STATE_FILE } from "./flush-state.js";
export {
  createMemoryTools,
  type MemoryToolResults,
  type MemoryTools,
  type MemoryToolsHost,
  type MemoryToolsOptions,
  type SearchToolHit,
  type SearchToolResult,
  type WriteToolResult,
} from "./tools.js";
export type { MemoryGetArgs, MemorySearchArgs, MemoryWriteArgs } from "./tools-args.js";
export { parseToolArgs } from "./tools-args.js";
export { CURATION_TOOL_DEFINITIONS } from "./tools-curation.js";
export type {
  ConsolidateToolResult,
  CurationHost,
  ForgetToolResult,
  UpdateToolResult,
} from "./tools-curation-handlers.js";
export {
  type JsonSchema,
  MAX_WRITE_CHARS,
  MEMORY_TOOL_DEFINITIONS,
  type MemoryToolName,
  type OpenAiTool,
  openAiTools,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolParameters,
} from "./tools-definitions.js";
export { type ToolErrorResult, toolErrorResult } from "./tools-errors.js";
