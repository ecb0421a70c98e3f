/**
 * @engram/ui — a local web page to read, search and curate an agent's memory: `engram ui`.
 *
 * @example
 * ```ts
 * import { createMemory } from "@engram/core";
 * import { sqliteStore } from "@engram/store-sqlite";
 * import { startUi } from "@engram/ui";
 *
 * const memory = await createMemory({ workspace: "./my-agent", store: sqliteStore() });
 * const ui = await startUi({ memory });
 * console.log(ui.url); // http://127.0.0.1:PORT/timeline?token=…
 * ```
 *
 * @packageDocumentation
 */
export {
  type ApprovedConsolidation,
  operationId,
  type ShownConsolidation,
  type ShownOperation,
} from "./curation/consolidation.js";
export type { LineTarget } from "./curation/edits.js";
export { moveId, type ShownMove, type ShownPlan } from "./curation/lifecycle.js";
export type { TimelineDay, TimelineEntry, TimelineLog, TimelinePage } from "./data/timeline.js";
export { defaultBenchDir, openBrowser } from "./open-browser.js";
export { isLoopback, startUi, type UiOptions, type UiServer } from "./server.js";
