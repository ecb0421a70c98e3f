/**
 * `@engram/embed-openai/providers` — the package's provider descriptors alone: what engram's config
 * and `auto` selection ask (`id`, `settings`, `check`) without loading the embedder, the model or
 * the `openai` SDK, which `create` imports. The CLI imports this entry, so a process that only
 * checks whether OpenAI is configured (every keyword-only `engram` call does) stays small.
 *
 * @packageDocumentation
 */

export { openaiLanguageModelProvider } from "./chat-provider.js";
export { checkOpenAI, openaiProvider } from "./provider.js";
