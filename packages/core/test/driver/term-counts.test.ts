import { describe, expect, it } from "vitest";
import {
  encodeTermCounts,
  TermCountEncoder,
  TermCountPages,
  TermCountReader,
} from "../../src/driver/term-counts.js";

/** The (id, count) pairs of a blob (or of its bytes from `start` to `end`). */
function pairsOf(blob: Uint8Array, start?: number, end?: number): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  const reader = new TermCountReader();
  for (reader.read(blob, start, end); reader.next(); ) pairs.push([reader.id, reader.count]);
  return pairs;
}

describe("term-count blobs (a store's scanTermCounts source)", () => {
  it("encodes counts as varints and reads them back, ids ascending", () => {
    const ids = new Map([
      ["x", 5],
      ["y", 300],
      ["z", 70_000],
    ]);
    const unknown = new Set<string>();
    const encoder = new TermCountEncoder();
    const blob = encoder.encode(["y", "z", "x", "y"], new Map(), (t) => ids.get(t), unknown);
    expect(unknown.size).toBe(0);
    expect(pairsOf(blob as Uint8Array)).toEqual([
      [5, 1],
      [300, 2],
      [70_000, 1],
    ]);
    // A term without an id: no blob, the term reported, and the next chunk unaffected.
    expect(encoder.encode(["x", "w"], ids, () => undefined, unknown)).toBeUndefined();
    expect([...unknown]).toEqual(["w"]);
    expect([...(encoder.encode(["x"], ids, () => undefined, unknown) ?? [])]).toEqual([5, 1]);
  });

  it("keeps ids and counts up to 2^53 and refuses a blob cut off", () => {
    const ids = [0, 127, 128, 16_383, 16_384, 2 ** 31, 2 ** 53 - 1];
    const counts: number[] = [];
    for (const [i, id] of ids.entries()) counts[id] = [1, 128, 2 ** 40][i % 3] as number;
    const blob = encodeTermCounts(ids, counts);
    expect(pairsOf(blob)).toEqual(ids.map((id) => [id, counts[id]]));
    // 127's count (128) takes bytes 2 and 3: a range ending after byte 2 cuts it off.
    expect(() => pairsOf(blob, 0, 3)).toThrow(RangeError);
  });

  it("decodes a page of blobs laid end to end, naming each id once per scan", () => {
    const blobs = [
      encodeTermCounts([1, 4], [0, 2, 0, 0, 1]),
      new Uint8Array(0),
      encodeTermCounts([4, 900], Object.assign([], { 4: 3, 900: 1 })),
    ];
    const bytes = new Uint8Array(blobs.reduce((n, b) => n + b.length, 0));
    const ends: number[] = [];
    let at = 0;
    for (const blob of blobs) {
      bytes.set(blob, at);
      at += blob.length;
      ends.push(at);
    }
    const pages = new TermCountPages();
    const { page, unnamed } = pages.read(bytes, ends, blobs.length);
    expect(page.size).toBe(3);
    expect([...page.ends.subarray(0, 3)]).toEqual([2, 2, 4]);
    expect([...page.ids.subarray(0, 4)]).toEqual([1, 4, 4, 900]);
    expect([...page.counts.subarray(0, 4)]).toEqual([2, 1, 3, 1]);
    expect(unnamed).toEqual([1, 4, 900]);
    // The next page names only what is new.
    const next = pages.read(encodeTermCounts([4, 7], [0, 0, 0, 0, 1, 0, 0, 2]), [4], 1);
    expect(next.unnamed).toEqual([7]);
  });
});
