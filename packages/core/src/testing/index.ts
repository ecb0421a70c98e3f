/**
 * Test utilities for engram drivers and integrations: the store conformance kit (run it from your
 * own driver's tests) and a deterministic embedder.
 */
export { describeStoreConformance, type StoreConformanceFactory } from "./conformance.js";
export { createHashingEmbedder, type HashingEmbedder } from "./hashing-embedder.js";
export { storeUpsert } from "./store-upsert.js";
