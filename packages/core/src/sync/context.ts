import type { EngramConfig } from "../config/schema.js";
import type { Embedder } from "../embedding/embedder.js";
import type { MemoryStore } from "../store/store.js";
import type { Analyzer } from "../text/analyzer.js";
import type { Tier } from "../tier.js";

/** Everything indexing needs, resolved once per `Memory`. */
export interface IndexContext {
  /** Absolute, real path of the workspace. */
  workspace: string;
  config: EngramConfig;
  store: MemoryStore;
  analyzer: Analyzer;
  /** null: keyword-only index. */
  embedder: Embedder | null;
  /** Tier of an indexed path (from the config's tier map). */
  tierOf: (path: string) => Tier;
}
