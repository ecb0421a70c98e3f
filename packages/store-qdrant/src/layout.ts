import { EngramError } from "@engram/core";
import type { Bm25Params } from "./options.js";
import { LAYOUT_VERSION } from "./schema.js";

/** What the layout meta records: the store's layout version and its BM25 weighting. */
export interface Layout {
  version: number;
  bm25: Bm25Params;
}

/** The layout meta value this store writes. */
export function layoutValue(bm25: Bm25Params): string {
  return JSON.stringify({ version: LAYOUT_VERSION, bm25 } satisfies Layout);
}

/** What to do about the layout found in a collection's meta. */
export type LayoutCheck =
  | { kind: "ok" }
  /** Nothing recorded yet, or only the BM25 settings changed while no chunk is stored. */
  | { kind: "write" }
  | { kind: "error"; error: EngramError };

/**
 * Compare the recorded layout with this store's. A newer layout version is refused (the data may
 * mean something this package does not know). Other BM25 settings are refused while chunks exist:
 * their sparse vectors were weighted with the old ones, and mixing both would skew every ranking.
 */
export function checkLayout(
  recorded: string | undefined,
  bm25: Bm25Params,
  chunks: number,
  where: string,
): LayoutCheck {
  if (recorded === undefined) return { kind: "write" };
  let layout: Partial<Layout>;
  try {
    layout = JSON.parse(recorded) as Partial<Layout>;
  } catch {
    layout = {};
  }
  if (typeof layout.version !== "number" || layout.version > LAYOUT_VERSION) {
    return {
      kind: "error",
      error: new EngramError(
        "STORE_FAILED",
        `The Qdrant index ${where} has layout ${recorded}, which this @engram/store-qdrant (layout ${LAYOUT_VERSION}) does not understand.`,
        { hint: "Upgrade engram, or point store.options.collection at a new collection." },
      ),
    };
  }
  const old = layout.bm25;
  const same = old && old.k1 === bm25.k1 && old.b === bm25.b && old.avgTerms === bm25.avgTerms;
  if (same) return { kind: "ok" };
  if (chunks === 0) return { kind: "write" };
  return {
    kind: "error",
    error: new EngramError(
      "CONFIG_INVALID",
      `The Qdrant index ${where} was built with BM25 settings ${JSON.stringify(old)}, not ${JSON.stringify(bm25)}.`,
      {
        hint: "Use the settings it was built with (store.options.bm25), or give store.options.collection a new name and run `engram sync`, so every chunk is weighted the same way.",
      },
    ),
  };
}
