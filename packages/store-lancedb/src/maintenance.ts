import type { Table } from "@lancedb/lancedb";
import { rebuildFulltextIndex, unindexedTextRows } from "./fulltext.js";
import { readMeta, upsertMeta } from "./key-value.js";
import { DEFAULT_EXACT_VECTOR_BYTES } from "./options.js";
import { dimsOf, VECTOR_COLUMN } from "./schema.js";
import { column } from "./sql.js";
import {
  type VectorIndexKind,
  vectorIndex,
  vectorIndexKind,
  vectorIndexSegments,
} from "./vectors.js";

/** The tables the store keeps, by role. */
export interface Tables {
  meta: Table;
  files: Table;
  chunks: Table;
  keyValue: Table;
}

/** When and how the store maintains its tables. */
export interface MaintenancePolicy {
  /** Rebuild the full-text index once rows changed since the last build exceed this fraction. */
  fulltextStaleFraction: number;
  /** Keep superseded versions this long (ms) when pruning. */
  versionRetentionMs: number;
  /** Build the quantised vector index from this many vectors (Infinity: never). */
  vectorIndexMinRows: number | undefined;
}

/**
 * Commits to one table after which it is optimized: every LanceDB commit adds a manifest and
 * usually a small data or deletion file, and LanceDB's guidance is to compact after about 20
 * modifications.
 */
export const COMMITS_BEFORE_OPTIMIZE = 32;

/**
 * Rows left outside the full-text index at which `close()` catches up. LanceDB scans such rows on
 * every query (~10 ms per 1,000), and a process that just synced hands the index to the next
 * one (a CLI search, an MCP server) as it leaves it; a few appended lines stay below this.
 */
export const SETTLE_ROWS_AT_CLOSE = 1000;

/**
 * Vectors from which the store keeps a vector index at all: below, an exact search reads so few
 * vectors that an index would not pay for its upkeep.
 */
export const VECTOR_INDEX_FROM_ROWS = 1000;

/**
 * Meta key holding the vectors the vector index was last built over. Each optimize adds the new
 * vectors to the index as a segment of its own, and a query searches every segment (30,000
 * chunks, 6 segments: 10.1 ms, rebuilt as one: 7.6 ms). The index is rebuilt whole once the
 * vectors have doubled since its last build, so segments stay few and the build work stays
 * proportional to the vectors written.
 */
export const VECTOR_INDEX_ROWS_META_KEY = "store-lancedb.vector-index-rows";

/**
 * Vector bytes up to which a process that added segments to an exact vector index rebuilds it as
 * one when it closes (see {@link Maintenance.settle}): 64 MiB, 43,690 vectors at 384 dimensions.
 * A rebuild copies every vector, so its cost grows with them while what it saves a query (one
 * segment's fixed overhead each) does not. At close after a cold sync of 100,000 chunks × 384
 * (README), the rebuild cost ~2 s of CPU and ~6 MB of folder more than merging the last rows.
 */
export const WHOLE_AT_CLOSE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Segments from which an exact vector index is rebuilt as one at close whatever its size, so an
 * index that stopped growing (and so is never rebuilt for having doubled) does not collect a
 * segment per optimize for ever.
 */
export const MAX_SEGMENTS_AT_CLOSE = 8;

/** When an exact vector index in several segments is rebuilt as one (see {@link rebuildsWhole}). */
export type Whole = "never" | "at-close" | "always";

/**
 * Whether an exact vector index of `segments` segments over `vectorBytes` of vectors is rebuilt as
 * one: "always" (on `optimize()`) whenever it is in several; "at-close" while it is small
 * ({@link WHOLE_AT_CLOSE_MAX_BYTES}) or once it has {@link MAX_SEGMENTS_AT_CLOSE} segments.
 */
export function rebuildsWhole(whole: Whole, segments: number, vectorBytes: number): boolean {
  if (whole === "never" || segments <= 1) return false;
  return (
    whole === "always" ||
    vectorBytes <= WHOLE_AT_CLOSE_MAX_BYTES ||
    segments >= MAX_SEGMENTS_AT_CLOSE
  );
}

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
 * retention, new vectors merged into the vector index), then the vector index is built if due.
 *
 * Every table is also optimized after {@link COMMITS_BEFORE_OPTIMIZE} commits.
 */
export class Maintenance {
  readonly #commits: Record<Role, number> = { meta: 0, files: 0, chunks: 0, keyValue: 0 };
  #staleRows = 0;
  /** The chunks table changed since the last {@link afterChange}. */
  #chunksChanged = false;
  /** This process optimized the chunks table: new vectors went into the index as segments. */
  #segmentsAdded = false;

  constructor(private readonly policy: MaintenancePolicy) {}

  /** Rows of the chunks table inserted or deleted since the full-text index was last built. */
  get staleRows(): number {
    return this.#staleRows;
  }

  /** Start counting from `staleRows` (e.g. what a previous process left, when the store opens). */
  restart(staleRows: number): void {
    this.#staleRows = staleRows;
    this.#commits.chunks = 0;
    this.#segmentsAdded = false;
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
    for (const role of ["meta", "files", "keyValue"] as const) {
      if (this.#commits[role] >= COMMITS_BEFORE_OPTIMIZE) await this.#optimize(tables, role);
    }
    if (!this.#chunksChanged) return;
    this.#chunksChanged = false;
    const stale =
      this.#staleRows > 0 &&
      this.#staleRows > this.policy.fulltextStaleFraction * (await tables.chunks.countRows());
    if (!stale && this.#commits.chunks < COMMITS_BEFORE_OPTIMIZE) return;
    if (stale) await this.#rebuildFulltext(tables.chunks);
    // Before the optimize, which prunes the index a rebuild replaced and merges new vectors into
    // one that was not rebuilt, so the vector index lags by no more than the text.
    await this.#indexVectors(tables);
    await this.#optimize(tables, "chunks");
  }

  /**
   * Before the store closes: if a write left at least {@link SETTLE_ROWS_AT_CLOSE} rows outside
   * the full-text index, rebuild it and optimize the chunks table, so the next process searches an
   * index with nothing to scan. An exact vector index this process's optimizes added segments to
   * is rebuilt as one while it is small ({@link WHOLE_AT_CLOSE_MAX_BYTES}) or once its segments
   * reach {@link MAX_SEGMENTS_AT_CLOSE} (see `#indexVectors`); a process that wrote nothing pays
   * nothing.
   */
  async settle(tables: Tables): Promise<void> {
    if ((await unindexedTextRows(tables.chunks)) >= SETTLE_ROWS_AT_CLOSE) {
      await this.#rebuildFulltext(tables.chunks);
      await this.#indexVectors(tables, "at-close");
      await this.#optimize(tables, "chunks");
    } else if (this.#segmentsAdded && (await this.#indexVectors(tables, "at-close"))) {
      // Prunes the index the rebuild replaced (as large as the vectors), compacting what is due.
      await this.#optimize(tables, "chunks");
    }
  }

  /** Rebuild the full-text index, optimize every table, and build the vector index if due. */
  async optimizeAll(tables: Tables): Promise<void> {
    await this.#rebuildFulltext(tables.chunks);
    await this.#indexVectors(tables, "always");
    for (const role of ["meta", "files", "keyValue", "chunks"] as const) {
      await this.#optimize(tables, role);
    }
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
    if (role === "chunks") this.#segmentsAdded = true;
  }

  /**
   * Build the vector index once the table holds {@link VECTOR_INDEX_FROM_ROWS} vectors (exact
   * below `vectorIndexMinRows` or its default, quantised from it; see `vectorIndex`), and rebuild it
   * whole once the vectors doubled since its last build or it is of the wrong kind for them. With
   * `whole` (on `optimize()`, and at close after this process's optimizes), an exact index that
   * is not one segment over every row is rebuilt as one too when {@link rebuildsWhole} says so.
   * Every query searches each segment apart (10,000
   * chunks in 3 segments: ~0.5 ms of CPU more per query than in one), and rebuilding an exact
   * index copies the vectors (~0.2 s of CPU at 10,000 × 384; at 100,000 see
   * {@link WHOLE_AT_CLOSE_MAX_BYTES}). Not after every
   * full-text rebuild: a cold sync of 10,000 chunks rebuilds that a dozen times or more, and its
   * CPU per chunk fell by a fifth when each rebuild took the vector index along. Resolves true
   * when it built the index.
   */
  async #indexVectors(tables: Tables, whole: Whole = "never"): Promise<boolean> {
    const { chunks, meta } = tables;
    const dims = dimsOf(await chunks.schema());
    if (dims === null) return false;
    const vectors = await chunks.countRows(`${column(VECTOR_COLUMN)} IS NOT NULL`);
    const approximateFrom =
      this.policy.vectorIndexMinRows ?? Math.floor(DEFAULT_EXACT_VECTOR_BYTES / (4 * dims));
    const wanted: Exclude<VectorIndexKind, "other"> =
      vectors >= approximateFrom
        ? "quantised"
        : vectors >= VECTOR_INDEX_FROM_ROWS
          ? "flat"
          : "none";
    if (wanted === "none") return false;
    const built = Number(await readMeta(meta, VECTOR_INDEX_ROWS_META_KEY));
    if (wanted === (await vectorIndexKind(chunks)) && vectors < 2 * built) {
      if (whole === "never" || wanted !== "flat") return false;
      const segments = await vectorIndexSegments(chunks);
      if (!rebuildsWhole(whole, segments, vectors * dims * 4)) return false;
    }
    await chunks.createIndex(VECTOR_COLUMN, { config: vectorIndex(wanted), replace: true });
    await this.#recordVectorIndex(tables, vectors);
    return true;
  }

  async #recordVectorIndex(tables: Tables, vectors: number): Promise<void> {
    await upsertMeta(tables.meta, VECTOR_INDEX_ROWS_META_KEY, String(vectors));
    this.#commits.meta++;
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
