/**
 * Who may see what: the scope labels chunks carry in the index, and (see the workspace's
 * `privacy.ts`) private spans, personal and sensitive files.
 */

export * from "./config-schema.js";
export * from "./model-view.js";
export * from "./scope-sources.js";
