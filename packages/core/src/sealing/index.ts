/**
 * Encryption at rest for sensitive memory: age-sealed placeholders, the key from the environment,
 * seal / unseal / rotation, sealed files searched from memory with the key (main scope only).
 */
export * from "./cipher.js";
export * from "./format.js";
export * from "./keys.js";
export * from "./memory-ops.js";
export * from "./rotate.js";
export * from "./seal-file.js";
export * from "./seal-spans.js";
export * from "./sealed-files.js";
export * from "./sealed-index.js";
export * from "./session.js";
export * from "./spans.js";
export * from "./writes.js";
