/**
 * The workspace: where memory lives on disk (layout, tiers), how it is listed (scan), read
 * (strict UTF-8, the `memory_get` sandbox) and written (atomic replace, locked append).
 */
export * from "./append.js";
export * from "./atomic.js";
export * from "./clock.js";
export * from "./durable.js";
export * from "./front-matter.js";
export * from "./layout.js";
export * from "./lock.js";
export * from "./privacy.js";
export * from "./read.js";
export * from "./sandbox.js";
export * from "./scan.js";
export * from "./tiers.js";
