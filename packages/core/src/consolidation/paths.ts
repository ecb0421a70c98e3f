import { THREE_TIER_PATHS } from "../workspace/presets.js";

/** Folder of the readable reports of consolidation passes: `memory/dreams/YYYY-MM-DD.md`. */
export const REPORTS_DIR = "memory/dreams";
/** Where lines removed from curated files go: `memory/archive/consolidation/YYYY-MM-DD.md`. */
export const ARCHIVE_DIR = `${THREE_TIER_PATHS.archiveDir}/consolidation`;
/**
 * The pass state (what was read up to which line, when the last pass ran), a workspace file so it
 * is journaled, undone and kept with the memory it describes (`.engram/` is a cache).
 */
export const STATE_FILE = `${REPORTS_DIR}/.state.json`;

/** The report of the day `date` (`YYYY-MM-DD`). */
export function reportPath(date: string): string {
  return `${REPORTS_DIR}/${date}.md`;
}

/** The consolidation archive of the day `date`. */
export function archivePath(date: string): string {
  return `${ARCHIVE_DIR}/${date}.md`;
}

/** Files consolidation writes for itself: never a source, never curated memory. */
export function isConsolidationPath(p: string): boolean {
  return p === REPORTS_DIR || p.startsWith(`${REPORTS_DIR}/`) || p.startsWith(`${ARCHIVE_DIR}/`);
}
