import type { SearchOptions, SearchResponse } from "../search/types.js";
import type { Analyzer } from "../text/analyzer.js";
import type { AppendResult } from "../workspace/append.js";
import type { Clock } from "../workspace/clock.js";
import type { MemoryFileSlice } from "../workspace/read.js";

/**
 * What the tier APIs use of a {@link Memory}: its workspace and clock, its locked appends and
 * search, and the dirty marks that get their writes indexed before the next search. A `Memory`
 * is one.
 */
export interface TierHost {
  readonly workspace: string;
  readonly clock: Clock;
  readonly analyzer: Analyzer;
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  get(path: string, options?: { from?: number; lines?: number }): Promise<MemoryFileSlice>;
  appendLongTerm(text: string, options?: { file?: string }): Promise<AppendResult>;
  noteWritten(...paths: string[]): void;
}
