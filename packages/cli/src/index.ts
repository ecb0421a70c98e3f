/**
 * @engram/cli — the `engram` command, usable as a library for embedding the CLI in other tools.
 * @packageDocumentation
 */
export { positiveInt } from "./context.js";
export { PROVIDERS, STORE_DRIVERS, storeFromConfig } from "./drivers.js";
export { HEAP_GROWING_PERCENT, type HeapGrowthHost, limitHeapGrowth } from "./heap-growth.js";
export { type Io, json, line, processIo, reportError } from "./output.js";
export { createProgram, run } from "./program.js";
export { openMemory, workspaceDir } from "./workspace.js";
