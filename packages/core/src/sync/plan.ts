import { lstat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { FileRecord } from "../store/records.js";
import { type ScannedFile, scanWorkspace } from "../workspace/scan.js";
import type { IndexContext } from "./context.js";

/** What a sync would do, decided from file stats alone (no file is read). */
export interface SyncPlan {
  /** Files that are new, or whose mtime, size or tier differs from the index: they will be read. */
  changed: ScannedFile[];
  /** Files whose mtime, size and tier match the index. */
  unchanged: number;
  /** Indexed paths whose file is gone. */
  removed: string[];
  /** What the index knew before, by path. */
  known: Map<string, FileRecord>;
  /** Scan warnings (e.g. a missing extra path). */
  warnings: string[];
}

/**
 * Diff the workspace against the index by mtime, size and tier. With `paths`, only those paths
 * are considered (used after engram's own writes, so they are searchable at once). With `all`,
 * every file counts as changed (content hashes still decide whether it is re-chunked).
 */
export async function planSync(
  ctx: IndexContext,
  options: {
    paths?: readonly string[] | undefined;
    all?: boolean;
    /** Paths that count as changed even when their stats match (e.g. still waiting for vectors). */
    redo?: ReadonlySet<string>;
  } = {},
): Promise<SyncPlan> {
  const records = await ctx.store.listFiles({ source: "memory" });
  const known = new Map(records.map((r) => [r.path, r]));
  const { files, warnings } = options.paths
    ? await statPaths(ctx.workspace, options.paths)
    : await scanWorkspace({ workspace: ctx.workspace, extraPaths: ctx.config.extraPaths });

  const present = new Set<string>();
  const changed: ScannedFile[] = [];
  let unchanged = 0;
  for (const file of files) {
    present.add(file.path);
    const record = known.get(file.path);
    if (
      !options.all &&
      !options.redo?.has(file.path) &&
      record &&
      record.mtimeMs === file.mtimeMs &&
      record.size === file.size &&
      record.tier === ctx.tierOf(file.path)
    ) {
      unchanged++;
    } else {
      changed.push(file);
    }
  }
  const candidates = options.paths ?? [...known.keys()];
  const removed = candidates.filter((path) => known.has(path) && !present.has(path));
  return { changed, unchanged, removed, known, warnings };
}

/** Stat specific index keys (workspace-relative or absolute); missing or non-regular files are left out. */
async function statPaths(
  workspace: string,
  paths: readonly string[],
): Promise<{ files: ScannedFile[]; warnings: string[] }> {
  const files: ScannedFile[] = [];
  for (const path of new Set(paths)) {
    const absPath = isAbsolute(path) ? path : join(workspace, path);
    try {
      const stat = await lstat(absPath);
      if (stat.isFile()) {
        files.push({ path, absPath, mtimeMs: Math.floor(stat.mtimeMs), size: stat.size });
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return { files, warnings: [] };
}
