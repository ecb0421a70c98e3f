import { type Memory, TIERS, type Tier } from "@engram/core";
import { tierOf } from "./files.js";
import type { WorkspaceListing } from "./listing.js";

/** Files, bytes and ages of a set of memory files. */
export interface Totals {
  files: number;
  bytes: number;
  /** Modification times of the newest and oldest file (ms since the epoch), null when empty. */
  newestMs: number | null;
  oldestMs: number | null;
}

/** One tier as the layout maps it: its globs, totals, and the folders its files are in. */
export interface TierSummary extends Totals {
  tier: Tier;
  globs: string[];
  folders: Array<Totals & { folder: string }>;
}

/** A folder's files (one level), for the tiers page. */
export interface FolderListing {
  folder: string;
  files: Array<{ path: string; name: string; tier: Tier; size: number; mtimeMs: number }>;
  /** Files left out beyond the limit. */
  more: number;
}

/** The short / mid / long / archive tiers of the workspace, with sizes and ages per folder. */
export async function buildTiers(
  memory: Memory,
  listing: WorkspaceListing,
): Promise<TierSummary[]> {
  const tiers = new Map<Tier, { totals: Totals; folders: Map<string, Totals> }>(
    TIERS.map((t) => [t, { totals: emptyTotals(), folders: new Map() }]),
  );
  for (const file of await listing.files()) {
    const entry = tiers.get(tierOf(memory, file.path));
    if (!entry) continue;
    add(entry.totals, file);
    const folder = folderOf(file.path);
    let totals = entry.folders.get(folder);
    if (!totals) {
      totals = emptyTotals();
      entry.folders.set(folder, totals);
    }
    add(totals, file);
  }
  return TIERS.map((tier) => {
    const entry = tiers.get(tier) as { totals: Totals; folders: Map<string, Totals> };
    return {
      tier,
      globs: [...(memory.layout.tiers[tier] ?? [])],
      ...entry.totals,
      folders: [...entry.folders]
        .map(([folder, totals]) => ({ folder, ...totals }))
        .sort((a, b) => (a.folder < b.folder ? -1 : 1)),
    };
  });
}

/** The memory files directly in `folder` (newest first), at most `limit`. */
export async function listFolder(
  memory: Memory,
  listing: WorkspaceListing,
  folder: string,
  limit = 500,
): Promise<FolderListing> {
  const files = (await listing.files())
    .filter((f) => folderOf(f.path) === folder)
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : 1));
  return {
    folder,
    files: files.slice(0, limit).map((f) => ({
      path: f.path,
      name: f.path.slice(f.path.lastIndexOf("/") + 1),
      tier: tierOf(memory, f.path),
      size: f.size,
      mtimeMs: f.mtimeMs,
    })),
    more: Math.max(0, files.length - limit),
  };
}

/** The folder of an index path (`.` for a file at the workspace root). */
export function folderOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "." : path.slice(0, i);
}

function emptyTotals(): Totals {
  return { files: 0, bytes: 0, newestMs: null, oldestMs: null };
}

function add(t: Totals, f: { size: number; mtimeMs: number }): void {
  t.files++;
  t.bytes += f.size;
  t.newestMs = t.newestMs === null ? f.mtimeMs : Math.max(t.newestMs, f.mtimeMs);
  t.oldestMs = t.oldestMs === null ? f.mtimeMs : Math.min(t.oldestMs, f.mtimeMs);
}
