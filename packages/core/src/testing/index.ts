/**
 * Test utilities for engram drivers and integrations: the store conformance kit (run it from your
 * own driver's tests), a deterministic embedder and a seeded random source.
 */
export { describeStoreConformance, type StoreConformanceFactory } from "./conformance.js";
export {
  describeEmbedderConformance,
  type EmbedderConformanceOptions,
  type EmbedderConformanceSubject,
  type EmbedderFailure,
} from "./embedder-conformance.js";
export { createHashingEmbedder, type HashingEmbedder } from "./hashing-embedder.js";
export {
  CONFORMANCE_SCHEMA,
  describeLanguageModelConformance,
  type LanguageModelConformanceSubject,
  type LanguageModelFailure,
} from "./language-model-conformance.js";
export {
  describeStoreParity,
  type StoreParityOptions,
  type TextParityTolerance,
} from "./parity.js";
export { notes as parityNotes, PARITY_QUERIES } from "./parity-notes.js";
export type { InjectedFailure, ProviderTestHooks } from "./provider-conformance.js";
export { seededRandom } from "./random.js";
export {
  describeRerankerConformance,
  type RerankerConformanceOptions,
  type RerankerConformanceSubject,
  type RerankerFailure,
} from "./reranker-conformance.js";
export { schemaExample } from "./schema-example.js";
export {
  createScriptedLanguageModel,
  type ScriptedAnswer,
  type ScriptedLanguageModel,
  type ScriptedLanguageModelOptions,
} from "./scripted-language-model.js";
export { storeUpsert } from "./store-upsert.js";
