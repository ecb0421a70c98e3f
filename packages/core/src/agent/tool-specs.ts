import { memoryConsolidateTool } from "./tool-consolidate.js";
import { memoryForgetTool } from "./tool-forget.js";
import { memoryGetTool } from "./tool-get.js";
import { memorySearchTool } from "./tool-search.js";
import { memoryUpdateTool } from "./tool-update.js";
import { memoryWriteTool } from "./tool-write.js";

/**
 * Every memory tool, in the order they are offered. A tool listed here is served by
 * `createMemoryTools`, every tool format, `engram mcp` and the framework adapters.
 */
export const MEMORY_TOOL_SPECS = [
  memorySearchTool,
  memoryGetTool,
  memoryWriteTool,
  memoryForgetTool,
  memoryUpdateTool,
  memoryConsolidateTool,
] as const;

/** The names of engram's memory tools. */
export type MemoryToolName = (typeof MEMORY_TOOL_SPECS)[number]["name"];
