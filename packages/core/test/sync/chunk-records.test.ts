import { describe, expect, it } from "vitest";
import { chunkRecords, isLogFile } from "../../src/sync/chunk-records.js";
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

describe("log files get their own chunk size", () => {
  const log = Array.from(
    { length: 40 },
    (_, i) => `- [D1:${i}] entry ${i} about the 项目 plan`,
  ).join("\n");
  const chunking = { tokens: 400, overlap: 80, logs: { tokens: 60, overlap: 0 } };
  const count = (path: string, source = "memory") =>
    chunkRecords({ path, source, tier: "short" }, log, analyzer, chunking).length;

  it("daily logs in any folder and transcripts are logs; other notes are not", () => {
    expect(isLogFile({ path: "memory/2026-01-02.md", source: "memory" })).toBe(true);
    expect(isLogFile({ path: "memory/archive/daily/2026-01-02.md", source: "memory" })).toBe(true);
    expect(isLogFile({ path: "memory/logs/2026-01-02.md", source: "memory" })).toBe(true);
    expect(isLogFile({ path: "sessions/a.jsonl", source: "sessions" })).toBe(true);
    expect(isLogFile({ path: "memory/notes-2026-01-02.md", source: "memory" })).toBe(false);
    expect(isLogFile({ path: "MEMORY.md", source: "memory" })).toBe(false);
  });

  it("chunks a log smaller, and the same log the same wherever it lives", () => {
    expect(count("memory/2026-01-02.md")).toBeGreaterThan(count("memory/notes.md"));
    expect(count("memory/archive/daily/2026-01-02.md")).toBe(count("memory/2026-01-02.md"));
    expect(
      chunkRecords({ path: "memory/notes.md", source: "memory", tier: "long" }, log, analyzer, {
        tokens: 400,
        overlap: 80,
      }).length,
    ).toBe(count("memory/notes.md"));
  });
});
