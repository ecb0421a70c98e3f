import { CHARACTER_TERM_WEIGHT, EngramError } from "@engram/core/driver";
import type { Bm25Params } from "./options.js";
import { LAYOUT_VERSION } from "./schema.js";

/**
 * What the layout meta records: the store's layout version and its BM25 weighting, including the
 * term-frequency weight of single Han and kana characters (core's `CHARACTER_TERM_WEIGHT`; absent
 * in collections written before it existed, whose characters were weighted 1).
 */
export interface Layout {
  version: number;
  bm25: Bm25Params & { characterWeight?: number };
}

/** The BM25 weighting this store's sparse vectors use, as the layout records it. */
function weighting(bm25: Bm25Params): Layout["bm25"] {
  return { ...bm25, characterWeight: CHARACTER_TERM_WEIGHT };
}

/** The layout meta value this store writes. */
export function layoutValue(bm25: Bm25Params): string {
  return JSON.stringify({ version: LAYOUT_VERSION, bm25: weighting(bm25) } satisfies Layout);
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
  const mine = weighting(bm25);
  const sameParams =
    old && old.k1 === mine.k1 && old.b === mine.b && old.avgTerms === mine.avgTerms;
  if (sameParams && old.characterWeight === mine.characterWeight) return { kind: "ok" };
  if (chunks === 0) return { kind: "write" };
  if (sameParams) {
    return {
      kind: "error",
      error: new EngramError(
        "CONFIG_INVALID",
        `The Qdrant index ${where} was written with single Han and kana characters weighted ${old.characterWeight ?? 1} in BM25; this engram weighs them ${mine.characterWeight}, so that they count by presence.`,
        {
          hint: "Give store.options.collection a new name and run `engram sync` (or delete the collection and sync), so every chunk is weighted the same way.",
        },
      ),
    };
  }
  return {
    kind: "error",
    error: new EngramError(
      "CONFIG_INVALID",
      `The Qdrant index ${where} was built with BM25 settings ${JSON.stringify(old)}, not ${JSON.stringify(mine)}.`,
      {
        hint: "Use the settings it was built with (store.options.bm25), or give store.options.collection a new name and run `engram sync`, so every chunk is weighted the same way.",
      },
    ),
  };
}
