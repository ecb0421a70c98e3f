import { CHARACTER_TERM_WEIGHT } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { checkLayout, LAYOUT_VERSION, layoutValue } from "../src/collections.js";
import { DEFAULT_BM25 } from "../src/options.js";

describe("checkLayout", () => {
  const mine = layoutValue(DEFAULT_BM25);

  it("writes the layout into a new collection, accepts its own", () => {
    expect(checkLayout(undefined, DEFAULT_BM25, 0, "c")).toBe("write");
    expect(checkLayout(mine, DEFAULT_BM25, 500, "c")).toBe("ok");
    expect(JSON.parse(mine)).toEqual({
      version: LAYOUT_VERSION,
      bm25: { ...DEFAULT_BM25, characterWeight: CHARACTER_TERM_WEIGHT },
    });
  });

  it("refuses other BM25 settings while chunks exist, takes them on an empty collection", () => {
    const other = { ...DEFAULT_BM25, avgTerms: 100 };
    expect(() => checkLayout(mine, other, 3, "c at http://q")).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        hint: expect.stringContaining("store.options.bm25"),
      }),
    );
    expect(checkLayout(mine, other, 0, "c")).toBe("write");
  });

  it("refuses a collection whose characters were weighted otherwise (written before the weight)", () => {
    const before = JSON.stringify({ version: LAYOUT_VERSION, bm25: DEFAULT_BM25 });
    expect(() => checkLayout(before, DEFAULT_BM25, 3, "c at http://q")).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message: expect.stringContaining(
          `weighted 1 in BM25; this engram weighs them ${CHARACTER_TERM_WEIGHT}`,
        ),
        hint: expect.stringContaining("store.options.collection"),
      }),
    );
    expect(checkLayout(before, DEFAULT_BM25, 0, "c")).toBe("write");
  });

  it("refuses a newer or unreadable layout", () => {
    const newer = JSON.stringify({ version: LAYOUT_VERSION + 1, bm25: DEFAULT_BM25 });
    expect(() => checkLayout(newer, DEFAULT_BM25, 0, "c")).toThrow(
      expect.objectContaining({
        code: "STORE_FAILED",
        message: expect.stringContaining("layout version"),
      }),
    );
    expect(() => checkLayout("not json", DEFAULT_BM25, 0, "c")).toThrow(/not json/);
  });
});
