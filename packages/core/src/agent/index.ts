/**
 * Agent integration: the memory tools (`memory_search`, `memory_get`, `memory_write`, …) defined
 * once (valibot schemas → JSON Schema) with handlers and provider formats, the context builder, and
 * the pre-compaction memory flush policy.
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
  flushPrompts,
  isNoReply,
  NO_REPLY,
} from "./flush-prompts.js";
export { SESSIONS_STATE_FILE } from "./flush-state.js";
export {
  listMemoryFiles,
  type MemoryFileEntry,
  type MemoryFilesHost,
  type MemoryFilesOptions,
  readMemoryFileText,
} from "./memory-files.js";
export { recallPrompt } from "./recall-prompt.js";
export { answerToolCall, type ToolAnswer } from "./tool-answer.js";
export { type ConsolidateToolResult, memoryConsolidateTool } from "./tool-consolidate.js";
export { type ForgetToolResult, memoryForgetTool } from "./tool-forget.js";
export {
  type AnthropicTool,
  anthropicTools,
  type OpenAiResponsesTool,
  type OpenAiTool,
  openAiResponsesTools,
  openAiTools,
} from "./tool-formats.js";
export { memoryGetTool } from "./tool-get.js";
export {
  guardedToolsHost,
  ToolPrivacy,
  type ToolPrivacyHost,
  type ToolPrivacyOptions,
  withheldMarker,
} from "./tool-privacy.js";
export { type JsonSchema, jsonSchemaOf } from "./tool-schema.js";
export { memorySearchTool, type SearchToolHit, type SearchToolResult } from "./tool-search.js";
export {
  type CurationHost,
  defineMemoryTool,
  type MemoryToolSpec,
  type MemoryToolsHost,
  type ToolAnnotations,
} from "./tool-spec.js";
export { MEMORY_TOOL_SPECS, type MemoryToolName } from "./tool-specs.js";
export { memoryUpdateTool, type UpdateToolResult } from "./tool-update.js";
export { MAX_WRITE_CHARS, memoryWriteTool, type WriteToolResult } from "./tool-write.js";
export {
  createMemoryTools,
  type MemoryToolResults,
  type MemoryTools,
  type MemoryToolsOptions,
} from "./tools.js";
export {
  type MemoryGetArgs,
  type MemorySearchArgs,
  type MemoryToolArgs,
  type MemoryWriteArgs,
  parseToolArgs,
} from "./tools-args.js";
export {
  MEMORY_TOOL_DEFINITIONS,
  type ToolDefinition,
  type ToolParameters,
  toolDefinition,
} from "./tools-definitions.js";
export { type ToolErrorResult, toolErrorResult, toolErrorText } from "./tools-errors.js";
