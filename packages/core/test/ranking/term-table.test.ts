import { describe, expect, it } from "vitest";
import { TermTable } from "../../src/ranking/term-table.js";

describe("TermTable", () => {
  it("numbers terms in the order first met, and finds them again", () => {
    const table = new TermTable();
    expect(table.add("memory")).toBe(0);
    expect(table.add("记忆")).toBe(1);
    expect(table.add("memory")).toBe(0);
    expect(table.add("")).toBe(2);
    expect(table.get("记忆")).toBe(1);
    expect(table.get("")).toBe(2);
    expect(table.get("memor")).toBeUndefined();
    expect(table.get("memoryy")).toBeUndefined();
    expect(table.get("记")).toBeUndefined();
    expect(table.size).toBe(3);
  });

  it("keeps every id right through its growth, like a Map", () => {
    const table = new TermTable();
    const map = new Map<string, number>();
    // ASCII, Chinese, astral (surrogate pairs) and prefixes of one another, 60k distinct terms.
    const term = (i: number) =>
      i % 3 === 0
        ? `t${i}`
        : i % 3 === 1
          ? `检索${String.fromCodePoint(0x4e00 + (i % 20000))}${i}`
          : `😀${i}`;
    for (let i = 0; i < 60_000; i++) {
      const t = term(i);
      if (!map.has(t)) map.set(t, map.size);
      expect(table.add(t)).toBe(map.get(t));
    }
    expect(table.size).toBe(map.size);
    for (const [t, id] of map) expect(table.get(t)).toBe(id);
    expect(table.get("t1")).toBeUndefined();
    expect(table.get("t60000")).toBeUndefined();
    expect(table.bytes).toBeGreaterThan(0);
  });
});
