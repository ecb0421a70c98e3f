/**
 * `@engram/embed-local/providers` — the package's provider descriptors alone: what engram's config
 * and `auto` selection ask (`id`, `settings`, `check`, which reads at most a GGUF file's header)
 * without loading the embedder, reranker and chat code, which `create` imports (node-llama-cpp
 * itself loads only when a model does). The CLI imports this entry, so a process that only checks
 * whether a local model is configured (every keyword-only `engram` call does) stays small.
 *
 * @packageDocumentation
 */

export { localLanguageModelProvider } from "./chat-provider.js";
export { isGgufFile, localProvider, localRerankerProvider } from "./provider.js";
