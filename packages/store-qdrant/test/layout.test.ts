import { CHARACTER_TERM_WEIGHT } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { checkLayout, layoutValue } from "../src/layout.js";
import { DEFAULT_BM25 } from "../src/options.js";
import { LAYOUT_VERSION } from "../src/schema.js";

describe("checkLayout", () => {
  const mine = layoutValue(DEFAULT_BM25);

  it("writes the layout into a new collection, accepts its own", () => {
    expect(checkLayout(undefined, DEFAULT_BM25, 0, "c")).toEqual({ kind: "write" });
    expect(checkLayout(mine, DEFAULT_BM25, 500, "c")).toEqual({ kind: "ok" });
    expect(JSON.parse(mine)).toEqual({
      version: LAYOUT_VERSION,
      bm25: { ...DEFAULT_BM25, characterWeight: CHARACTER_TERM_WEIGHT },
    });
  });

  it("refuses other BM25 settings while chunks exist, takes them on an empty collection", () => {
    const other = { ...DEFAULT_BM25, avgTerms: 100 };
    const refused = checkLayout(mine, other, 3, "c at http://q");
    expect(refused.kind).toBe("error");
    if (refused.kind === "error") {
      expect(refused.error.code).toBe("CONFIG_INVALID");
      expect(refused.error.hint).toContain("store.options.bm25");
    }
    expect(checkLayout(mine, other, 0, "c")).toEqual({ kind: "write" });
  });

  it("refuses a collection whose characters were weighted otherwise (written before the weight)", () => {
    const before = JSON.stringify({ version: LAYOUT_VERSION, bm25: DEFAULT_BM25 });
    const refused = checkLayout(before, DEFAULT_BM25, 3, "c at http://q");
    expect(refused.kind).toBe("error");
    if (refused.kind === "error") {
      expect(refused.error.code).toBe("CONFIG_INVALID");
      expect(refused.error.message).toContain(
        `weighted 1 in BM25; this engram weighs them ${CHARACTER_TERM_WEIGHT}`,
      );
      expect(refused.error.hint).toContain("store.options.collection");
    }
    expect(checkLayout(before, DEFAULT_BM25, 0, "c")).toEqual({ kind: "write" });
  });

  it("refuses a newer or unreadable layout", () => {
    const newer = JSON.stringify({ version: LAYOUT_VERSION + 1, bm25: DEFAULT_BM25 });
    expect(checkLayout(newer, DEFAULT_BM25, 0, "c")).toMatchObject({
      kind: "error",
      error: { code: "STORE_FAILED" },
    });
    expect(checkLayout("not json", DEFAULT_BM25, 0, "c").kind).toBe("error");
  });
});
