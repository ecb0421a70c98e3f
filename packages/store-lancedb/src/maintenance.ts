import type { Table } from "@lancedb/lancedb";
import { rebuildFulltextIndex } from "./fulltext.js";
import { VECTOR_COLUMN } from "./schema.js";
import { column } from "./sql.js";
import { createVectorIndex, hasVectorIndex } from "./vectors.js";

/** The tables the store keeps, by role. */
export interface Tables {
  meta: Table;
  files: Table;
  chunks: Table;
  cache: Table;
}

/** When and how the store maintains its tables. */
export interface MaintenancePolicy {
  /** Rebuild the full-text index once rows changed since the last build exceed this fraction. */
  fulltextStaleFraction: number;
  /** Keep superseded versions this long (ms) when pruning. */
  versionRetentionMs: number;
  /** Build the ANN vector index from this many vectors (Infinity: never). */
  vectorIndexMinRows: number;
}

/**
 * Commits to one table after which it is optimized: every LanceDB commit adds a manifest and
 * usually a small data or deletion file, and LanceDB's guidance is to compact after about 20
 * modifications.
 */
export const COMMITS_BEFORE_OPTIMIZE = 32;

type Role = keyof Tables;

/**
 * Keeps full-text statistics honest and the tables compact.
 *
 * LanceDB's full-text index does not absorb writes: rows added since it was built are scanned and
 * scored with statistics that differ from the indexed rows', and deleted rows keep counting in its
 * statistics — `optimize()` merges the new rows but drops deleted ones only when compaction
 * happens to rewrite their fragment; a rebuild always does. A rebuild costs time proportional to the table (README: ~0.5 s at 10k chunks, ~4 s at
 * 100k), so the store rebuilds once the rows inserted or deleted since the last build exceed a
 * fraction of the table (default 5 %): the statistics are never further off than that, scans of
 * unindexed rows stay bounded, and the total rebuild work stays proportional to the rows written.
 * The chunks table is optimized right after (compaction, pruning of versions older than the
 * retention, new vectors merged into the vector index), then the HNSW index is built if due.
 *
 * Every table is also optimized after {@link COMMITS_BEFORE_OPTIMIZE} commits.
 */
export class Maintenance {
  readonly #commits: Record<Role, number> = { meta: 0, files: 0, chunks: 0, cache: 0 };
  #staleRows = 0;
  /** The chunks table changed since the last {@link afterChange}. */
  #chunksChanged = false;

  constructor(private readonly policy: MaintenancePolicy) {}

  /** Rows of the chunks table inserted or deleted since the full-text index was last built. */
  get staleRows(): number {
    return this.#staleRows;
  }

  /** Start counting from `staleRows` (e.g. what a previous process left, when the store opens). */
  restart(staleRows: number): void {
    this.#staleRows = staleRows;
    this.#commits.chunks = 0;
  }

  /** Record a commit to `role`'s table that inserted or deleted `rows` rows. */
  noteCommit(role: Role, rows = 0): void {
    this.#commits[role]++;
    if (role === "chunks") {
      this.#staleRows += rows;
      this.#chunksChanged = true;
    }
  }

  /** Do whatever the recorded commits call for. Run after each change, in the write queue. */
  async afterChange(tables: Tables): Promise<void> {
    for (const role of ["meta", "files", "cache"] as const) {
      if (this.#commits[role] >= COMMITS_BEFORE_OPTIMIZE) await this.#optimize(tables, role);
    }
    if (!this.#chunksChanged) return;
    this.#chunksChanged = false;
    const stale =
      this.#staleRows > 0 &&
      this.#staleRows > this.policy.fulltextStaleFraction * (await tables.chunks.countRows());
    if (!stale && this.#commits.chunks < COMMITS_BEFORE_OPTIMIZE) return;
    if (stale) await this.#rebuildFulltext(tables.chunks);
    // Also merges the new vectors into the vector index, so it lags by no more than the text.
    await this.#optimize(tables, "chunks");
    await this.#indexVectorsIfLarge(tables.chunks);
  }

  /** Rebuild the full-text index, optimize every table, and build the vector index if due. */
  async optimizeAll(tables: Tables): Promise<void> {
    await this.#rebuildFulltext(tables.chunks);
    for (const role of ["meta", "files", "cache", "chunks"] as const) {
      await this.#optimize(tables, role);
    }
    await this.#indexVectorsIfLarge(tables.chunks);
  }

  async #rebuildFulltext(chunks: Table): Promise<void> {
    await rebuildFulltextIndex(chunks);
    this.#staleRows = 0;
  }

  async #optimize(tables: Tables, role: Role): Promise<void> {
    const table = tables[role];
    await table.optimize({
      cleanupOlderThan: await pruneCutoff(table, this.policy.versionRetentionMs),
    });
    this.#commits[role] = 0;
  }

  async #indexVectorsIfLarge(chunks: Table): Promise<void> {
    const min = this.policy.vectorIndexMinRows;
    if (!Number.isFinite(min)) return;
    const schema = await chunks.schema();
    if (!schema.fields.some((field) => field.name === VECTOR_COLUMN)) return;
    if (await hasVectorIndex(chunks)) return;
    if ((await chunks.countRows(`${column(VECTOR_COLUMN)} IS NOT NULL`)) < min) return;
    await createVectorIndex(chunks);
  }
}

/**
 * The `cleanupOlderThan` date that prunes exactly the versions of `table` superseded more than
 * `retentionMs` ago.
 *
 * LanceDB prunes by a version's own timestamp, but what a reader needs is the time a version
 * stopped being the latest: a version written an hour ago and replaced a second ago may still be
 * in use. A version is superseded when the next one is written, so every version older than the
 * newest one written before `now − retentionMs` was superseded before that moment; that newest
 * version's timestamp is the cutoff. With no retention, everything but the latest version goes.
 */
export async function pruneCutoff(
  table: Table,
  retentionMs: number,
  now = Date.now(),
): Promise<Date> {
  if (retentionMs <= 0) return new Date(now);
  const limit = now - retentionMs;
  let cutoff = 0;
  for (const { timestamp } of await table.listVersions()) {
    const time = timestamp.getTime();
    if (time <= limit && time > cutoff) cutoff = time;
  }
  return new Date(cutoff);
}
