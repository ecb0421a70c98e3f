import { lstat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { FileRecord, Source } from "../driver/records.js";
import { transcriptDelta } from "../sessions/delta.js";
import { SESSIONS_SOURCE, scanTranscripts } from "../sessions/scan.js";
import { type ScannedFile, scanWorkspace } from "../workspace/scan.js";
import type { IndexContext } from "./context.js";

/** A file a sync will read; `source` is `memory` when absent. */
export type PlannedFile = ScannedFile & { source?: Source };

/**
 * What a sync would do, decided from file stats (no memory file is read; for a transcript that
 * grew by less than `sessions.deltaBytes`, only the appended bytes are read to count its lines).
 */
export interface SyncPlan {
  /** Files that are new, or whose mtime, size or tier differs from the index: they will be read. */
  changed: PlannedFile[];
  /** Files whose mtime, size and tier match the index (and transcripts {@link deferred}). */
  unchanged: number;
  /** Transcripts that grew, but by less than the sessions delta: kept as indexed for now. */
  deferred: string[];
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
  // A sync of a few paths (after each memory write) reads only their records: listing every file
  // made it cost ~125 ms at 27k files.
  const records = options.paths ? await recordsOf(ctx, options.paths) : await ctx.store.listFiles();
  const known = new Map(records.map((r) => [r.path, r]));
  const { files, warnings } = options.paths
    ? await statPaths(ctx.workspace, options.paths)
    : await scanWorkspace({ workspace: ctx.workspace, extraPaths: ctx.config.extraPaths });

  const present = new Set<string>();
  const changed: PlannedFile[] = [];
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
  const candidates =
    options.paths ?? records.filter((r) => r.source !== SESSIONS_SOURCE).map((r) => r.path);
  const removed = candidates.filter((path) => known.has(path) && !present.has(path));
  const plan = { changed, unchanged, deferred: [] as string[], removed, known, warnings };
  // engram's own writes (`paths`) are memory files: transcripts wait for a full scan.
  if (!options.paths) await planTranscripts(ctx, records, options, plan);
  return plan;
}

/** Add the transcripts to `plan`: new and rewritten at once, grown ones past the delta only. */
async function planTranscripts(
  ctx: IndexContext,
  records: readonly FileRecord[],
  options: { all?: boolean; redo?: ReadonlySet<string> },
  plan: SyncPlan,
): Promise<void> {
  const { files, warnings } = scanTranscripts(ctx.workspace, ctx.config.sessions);
  plan.warnings.push(...warnings);
  const present = new Set<string>();
  for (const file of files) {
    present.add(file.path);
    const known = plan.known.get(file.path);
    const delta =
      options.all || options.redo?.has(file.path) || known?.source !== SESSIONS_SOURCE
        ? "new"
        : await transcriptDelta(file, known, ctx.config.sessions);
    if (delta === "unchanged") plan.unchanged++;
    else if (delta === "waiting") {
      plan.unchanged++;
      plan.deferred.push(file.path);
    } else plan.changed.push({ ...file, source: SESSIONS_SOURCE });
  }
  for (const record of records) {
    if (record.source === SESSIONS_SOURCE && !present.has(record.path)) {
      plan.removed.push(record.path);
    }
  }
}

/** The index's records of `paths` (those it has). */
async function recordsOf(ctx: IndexContext, paths: readonly string[]): Promise<FileRecord[]> {
  const records: FileRecord[] = [];
  for (const path of new Set(paths)) {
    const record = await ctx.store.getFile(path);
    if (record) records.push(record);
  }
  return records;
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
