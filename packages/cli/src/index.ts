/**
 * @engram/cli — the `engram` command, usable as a library for embedding the CLI in other tools.
 * @packageDocumentation
 */
export { PROVIDERS, storeFromConfig } from "./drivers.js";
export type { Io } from "./output.js";
export { createProgram, run } from "./program.js";
export { openMemory, workspaceDir } from "./workspace.js";
