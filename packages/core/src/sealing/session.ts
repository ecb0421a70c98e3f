import type { EngramConfig } from "../config/schema.js";
import type { MemoryStore } from "../driver/contract.js";
import type { FileRecord, StoreHit } from "../driver/records.js";
import { isEngramError } from "../errors.js";
import type { MemoryScope } from "../privacy/scope-sources.js";
import type { SearchResponse } from "../search/types.js";
import { chunkRecords } from "../sync/chunk-records.js";
import { LAST_SYNC_META_KEY } from "../sync/report.js";
import type { Analyzer } from "../text/analyzer.js";
import type { Tier } from "../tier.js";
import { DEFAULT_MAX_FILE_BYTES, readUtf8 } from "../workspace/read.js";
import { resolveMemoryPath } from "../workspace/sandbox.js";
import { resolveSealKey, type SealKey } from "./keys.js";
import { openSealedText } from "./seal-file.js";
import { SealedIndex } from "./sealed-index.js";
import { maskSealedSpans } from "./spans.js";

/** Source of the file record of a sealed file: indexed with no chunks, counted, never searched. */
export const SEALED_SOURCE = "memory#sealed";

/** What a search did with sealed files (absent when the workspace has none, or in the group scope). */
export interface SealedSearchInfo {
  /** Sealed files the index knows. */
  files: number;
  /** Sealed files opened with the key and searched (main scope only). */
  searched: number;
  /** Sealed files left out: no key, or a key that does not open them. */
  skipped: number;
  /** Why files were skipped, in words. */
  reason?: string;
}

/** What {@link SealingSession} needs of its memory. */
export interface SealingParts {
  workspace: string;
  config: EngramConfig;
  analyzer: Analyzer;
  env: Readonly<Record<string, string | undefined>>;
  tierOf: (path: string) => Tier;
}

/**
 * One memory's view of sealing: the key from its environment (read once), and the sealed files'
 * plaintext, opened in this process only for main-scope searches and kept in memory (never in the
 * store, its cache or a log).
 */
export class SealingSession {
  readonly #parts: SealingParts;
  #key: Promise<SealKey | null> | undefined;
  /** The sealed file records, as of the last sync the store recorded (one query per sync, not per search). */
  #records: { stamp: string | undefined; records: FileRecord[] } | undefined;
  /** Opened sealed files by path, with the hash of the placeholder they were opened from. */
  readonly #opened = new Map<string, { hash: string; index: SealedIndex | null }>();

  constructor(parts: SealingParts) {
    this.#parts = parts;
  }

  /**
   * The configured key, or null. A malformed key or key file rejects (with an `EngramError`
   * naming the variable, never the key).
   */
  key(): Promise<SealKey | null> {
    this.#key ??= resolveSealKey(this.#parts.workspace, this.#parts.env);
    return this.#key;
  }

  /**
   * The store a search in `scope` should read, and what happened to sealed files. In the main
   * scope with the key, the store's keyword search also answers from the sealed files' chunks,
   * merged by score; otherwise the store is returned as it is and sealed files are counted as
   * skipped.
   */
  async forSearch(
    store: MemoryStore,
    scope: MemoryScope,
  ): Promise<{
    store: MemoryStore;
    info: SealedSearchInfo | undefined;
    /** Paths of the sealed files (their results must leave no trace of the query in `.engram/`). */
    paths: ReadonlySet<string>;
  }> {
    if (scope !== "main") return { store, info: undefined, paths: NO_PATHS };
    const records = await this.#sealedRecords(store);
    if (records.length === 0) return { store, info: undefined, paths: NO_PATHS };
    const paths = new Set(records.map((r) => r.path));
    let key: SealKey | null = null;
    let reason: string | undefined;
    try {
      key = await this.key();
    } catch (error) {
      reason = isEngramError(error) ? error.describe() : "the key could not be read";
    }
    if (!key) {
      return {
        store,
        paths,
        info: {
          files: records.length,
          searched: 0,
          skipped: records.length,
          reason: reason ?? "no key (set ENGRAM_KEY or ENGRAM_KEY_FILE)",
        },
      };
    }
    const indexes: SealedIndex[] = [];
    let skipped = 0;
    for (const record of records) {
      const index = await this.#open(record, key);
      if (index) indexes.push(index);
      else skipped++;
    }
    const info: SealedSearchInfo = {
      files: records.length,
      searched: indexes.length,
      skipped,
      ...(skipped ? { reason: `${skipped} sealed with another key than ${key.source}'s` } : {}),
    };
    if (!indexes.length) return { store, info, paths };
    const merged = new SealedIndex(indexes.flatMap((i) => i.chunks));
    return { store: withSealedText(store, merged), info, paths };
  }

  /** `response` with {@link SealedSearchInfo} attached when there is any. */
  annotate(response: SearchResponse, info: SealedSearchInfo | undefined): SearchResponse {
    return info ? { ...response, sealed: info } : response;
  }

  async #sealedRecords(store: MemoryStore): Promise<FileRecord[]> {
    // Every sync ends by recording its report: while it is the same, so are the sealed files. A
    // report that counts none spares listing the index's files (~0.5 ms at 10k chunks, ~4 ms at
    // 100k: a tenth of a new process's first keyword search).
    const stamp = await store.getMeta(LAST_SYNC_META_KEY);
    if (!this.#records || stamp === undefined || this.#records.stamp !== stamp) {
      const none = stamp !== undefined && countsNoSealedFile(stamp);
      this.#records = {
        stamp,
        records: none ? [] : await store.listFiles({ source: SEALED_SOURCE }),
      };
    }
    return this.#records.records;
  }

  async #open(record: FileRecord, key: SealKey): Promise<SealedIndex | null> {
    const cached = this.#opened.get(record.path);
    if (cached && cached.hash === record.hash) return cached.index;
    let index: SealedIndex | null = null;
    try {
      const { config, workspace, analyzer } = this.#parts;
      const file = await resolveMemoryPath(workspace, record.path, {
        extraPaths: config.extraPaths,
      });
      const { text } = await readUtf8(file.absPath, {
        maxBytes: config.sync.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
      });
      const plain = await openSealedText(text, key, record.path);
      if (plain !== null) {
        const tier = this.#parts.tierOf(record.path);
        index = new SealedIndex(
          chunkRecords(
            { path: record.path, source: "memory", tier },
            maskSealedSpans(plain),
            analyzer,
            config.chunking,
          ),
        );
      }
    } catch {
      index = null; // another key, or the file changed under us: counted as skipped
    }
    this.#opened.set(record.path, { hash: record.hash, index });
    return index;
  }
}

/** `store` whose keyword search also returns `sealed`'s hits, merged by score. */
function withSealedText(store: MemoryStore, sealed: SealedIndex): MemoryStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === "searchText") {
        return async (
          terms: readonly string[],
          k: number,
          filter?: Parameters<MemoryStore["searchText"]>[2],
        ) => {
          const [own, extra] = [
            await target.searchText(terms, k, filter),
            sealed.searchText(terms, k, filter),
          ];
          if (!extra.length) return own;
          return mergeHits(own, extra, k);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function mergeHits(a: readonly StoreHit[], b: readonly StoreHit[], k: number): StoreHit[] {
  return [...a, ...b].sort((x, y) => y.score - x.score).slice(0, k);
}

const NO_PATHS: ReadonlySet<string> = new Set();

/** True when a stored sync report says the index holds no sealed file (`sealedFiles: 0`). */
function countsNoSealedFile(report: string): boolean {
  try {
    return (JSON.parse(report) as { sealedFiles?: unknown }).sealedFiles === 0;
  } catch {
    return false;
  }
}
