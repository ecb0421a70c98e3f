/**
 * @engram/ai-sdk — engram's memory tools as Vercel AI SDK tools.
 *
 * @packageDocumentation
 */
export { type EngramToolSet, type MemoryToolsSource, memoryTools } from "./tools.js";
