import { EngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { type Page, type PointId, scrollAll } from "../src/requests.js";

/** A scroll over `ids` in pages of `size`, cursor = the next page's first id (as Qdrant does). */
function pages(ids: PointId[], size: number) {
  const offsets: Array<PointId | undefined> = [];
  const fetch = async (offset: PointId | undefined): Promise<Page<PointId>> => {
    offsets.push(offset);
    const start = offset === undefined ? 0 : ids.indexOf(offset);
    return { points: ids.slice(start, start + size), next_page_offset: ids[start + size] ?? null };
  };
  return { fetch, offsets };
}

describe("scrollAll", () => {
  it("follows the cursor until the last page", async () => {
    const ids = Array.from({ length: 2500 }, (_, i) => `id-${i}`);
    const { fetch, offsets } = pages(ids, 1000);
    expect(await scrollAll(fetch)).toEqual(ids);
    expect(offsets).toEqual([undefined, "id-1000", "id-2000"]);
  });

  it("reads an empty collection in one request", async () => {
    const { fetch, offsets } = pages([], 1000);
    expect(await scrollAll(fetch)).toEqual([]);
    expect(offsets).toEqual([undefined]);
  });

  it("stops at an undefined cursor and accepts numeric cursors", async () => {
    const { fetch } = pages([1, 2, 3], 2);
    expect(await scrollAll(fetch)).toEqual([1, 2, 3]);
    expect(await scrollAll(async () => ({ points: ["x"] }))).toEqual(["x"]);
  });

  it("fails instead of looping when the server repeats a cursor", async () => {
    const stuck = async (): Promise<Page<string>> => ({ points: ["a"], next_page_offset: "a" });
    await expect(scrollAll(stuck)).rejects.toThrow(EngramError);
    await expect(scrollAll(stuck)).rejects.toThrow(/twice/);
  });

  it("fails on a cursor that is not a point id", async () => {
    const odd = async (): Promise<Page<string>> => ({ points: [], next_page_offset: { x: 1 } });
    await expect(scrollAll(odd)).rejects.toMatchObject({ code: "STORE_FAILED" });
  });
});
