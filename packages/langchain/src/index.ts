/**
 * @engram/langchain — engram's memory for LangChain.js: the memory tools for agents, and a
 * retriever over hybrid search.
 *
 * @packageDocumentation
 */
export { EngramRetriever, type EngramRetrieverInput } from "./retriever.js";
export { type MemoryToolsSource, memoryTools } from "./tools.js";
