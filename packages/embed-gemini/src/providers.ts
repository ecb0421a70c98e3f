/**
 * `@engram/embed-gemini/providers` — the package's provider descriptors alone: what engram's config
 * and `auto` selection ask (`id`, `settings`, `check`) without loading the embedder, the model or
 * the `@google/genai` SDK, which `create` imports. The CLI imports this entry, so a process that
 * only checks whether Gemini is configured (every keyword-only `engram` call does) stays small.
 *
 * @packageDocumentation
 */

export { geminiLanguageModelProvider } from "./chat-provider.js";
export { geminiProvider } from "./provider.js";
