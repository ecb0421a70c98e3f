/** `engram audit`: stale, duplicated and contradicted long-term memory; unmarked secrets and personal data; sealed files without their key. */
export * from "./audit.js";
export * from "./detectors.js";
export * from "./entries.js";
export * from "./memory-audit.js";
