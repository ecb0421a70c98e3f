export { chunkMarkdown, type MarkdownChunk } from "./chunker.js";
export { chunkId, chunkIds } from "./ids.js";
export { type ChunkingOptions, DEFAULT_CHUNKING, resolveChunkingOptions } from "./options.js";
