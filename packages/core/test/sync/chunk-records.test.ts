import { describe, expect, it } from "vitest";
import { chunkRecords } from "../../src/sync/chunk-records.js";
import { createAnalyzer } from "../../src/text/analyzer.js";

const analyzer = createAnalyzer();
const file = { path: "MEMORY.md", source: "memory" as const, tier: "long" as const };

describe("chunkRecords", () => {
  it("gives a chunk the terms of the headings it sits under but does not show", () => {
    const body = Array.from({ length: 60 }, (_, i) => `Line ${i} about apples and pears.`).join(
      "\n\n",
    );
    const records = chunkRecords(file, `# Rollback plan\n\n${body}\n`, analyzer, {
      tokens: 64,
      overlap: 0,
    });
    expect(records.length).toBeGreaterThan(2);
    const [first, later] = [records[0], records.at(-1)];
    expect(first?.text.startsWith("# Rollback plan")).toBe(true);
    expect(later?.text).not.toContain("Rollback");
    expect(later?.headings).toEqual(["Rollback plan"]);
    expect(later?.terms).toContain("rollback");
    // Shown headings are not counted twice.
    expect(first?.terms.filter((t) => t === "rollback")).toHaveLength(1);
  });
});
