import { EngramError } from "@engram/core/driver";
import type { Schemas } from "@qdrant/js-client-rest";

/** A point id, or a scroll cursor (Qdrant's `next_page_offset`). */
export type PointId = Schemas["ExtendedPointId"];

/** One page of a scroll: its points and the cursor of the next page (null/undefined: last page). */
export interface Page<T> {
  points: T[];
  next_page_offset?: PointId | null | Record<string, unknown>;
}

/**
 * Every point of a scroll, page after page: `fetch(offset)` gets the page starting at `offset`
 * (undefined for the first). Stops at the page without a next cursor. A cursor that comes back a
 * second time would loop forever, so it fails instead.
 * @throws EngramError `STORE_FAILED` when the server repeats a cursor.
 */
export async function scrollAll<T>(
  fetch: (offset: PointId | undefined) => Promise<Page<T>>,
): Promise<T[]> {
  const all: T[] = [];
  const seen = new Set<string>();
  let offset: PointId | undefined;
  for (;;) {
    const page = await fetch(offset);
    all.push(...page.points);
    const next = page.next_page_offset;
    if (next === null || next === undefined) return all;
    if (typeof next !== "string" && typeof next !== "number") {
      throw badCursor(JSON.stringify(next));
    }
    const key = `${typeof next}:${next}`;
    if (seen.has(key)) throw badCursor(String(next));
    seen.add(key);
    offset = next;
  }
}

function badCursor(cursor: string): EngramError {
  return new EngramError(
    "STORE_FAILED",
    `Qdrant returned the scroll cursor ${cursor} twice (or one that is not a point id); stopped reading.`,
    { hint: "Check the Qdrant server's health and version; engram needs Qdrant 1.10 or later." },
  );
}
