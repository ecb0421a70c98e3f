import { describe, expect, it } from "vitest";
import { createAnalyzer, scopedChunkRecords, scopeSources } from "../../src/internal/index.js";

const analyzer = createAnalyzer();
const chunking = { tokens: 400, overlap: 80 };
const file = { path: "memory/2026-01-02.md", source: "memory", tier: "short" as const };

describe("chunks labelled by the scope that may see them", () => {
  it("keeps public chunks shared, and splits a mixed chunk into a main-only and a redacted copy", () => {
    const text =
      "# Day\n\nokapi visit\nmy pin <!-- engram:private -->4242 quetzal<!-- /engram:private --> ok\n";
    const { chunks, warnings } = scopedChunkRecords(file, text, analyzer, chunking, []);
    expect(warnings).toEqual([]);
    const bySource = Object.fromEntries(chunks.map((c) => [c.source, c]));
    expect(Object.keys(bySource).sort()).toEqual(["memory#private", "memory#redacted"]);
    expect(bySource["memory#private"]?.text).toContain("4242 quetzal");
    const redacted = bySource["memory#redacted"];
    expect(redacted?.text).toBe("# Day\n\nokapi visit\nmy pin [private] ok");
    expect(redacted?.terms).toContain("okapi");
    expect(redacted?.terms.join(" ")).not.toMatch(/quetzal|4242|private/);
    expect(redacted?.id).not.toBe(bySource["memory#private"]?.id);
  });

  it("keeps a heading written inside a private span out of the public chunks after it", () => {
    const long = "filler words for the chunk budget ".repeat(40);
    const text = `# Notes\n\n<!-- engram:private -->\n## Quetzal clinic\nvisit\n<!-- /engram:private -->\n\n${long}\n\n${long}\n`;
    const { chunks } = scopedChunkRecords(file, text, analyzer, { tokens: 120, overlap: 0 }, []);
    const group = chunks.filter((c) => scopeSources("group", undefined).includes(c.source));
    expect(group.length).toBeGreaterThan(0);
    expect(JSON.stringify(group)).not.toMatch(/[Qq]uetzal|clinic/);
  });

  it("labels every chunk of a personal or sensitive file main-only, with no public copy", () => {
    const personal = scopedChunkRecords(
      { ...file, path: "memory/MEMORY.md" },
      "# Long\n\nfact\n",
      analyzer,
      chunking,
      [],
    );
    expect(personal.chunks.map((c) => c.source)).toEqual(["memory#private"]);
    const sensitive = scopedChunkRecords(
      file,
      "---\nsensitive: true\n---\nsecret\n",
      analyzer,
      chunking,
      [],
    );
    expect(new Set(sensitive.chunks.map((c) => c.source))).toEqual(new Set(["memory#private"]));
  });

  it("maps scopes to the stored sources a search reads", () => {
    expect(scopeSources("main", undefined)).toEqual([
      "memory",
      "memory#private",
      "sessions",
      "sessions#private",
    ]);
    expect(scopeSources("group", undefined)).toEqual(["memory", "memory#redacted"]);
    expect(scopeSources("group", ["sessions"])).toEqual([]);
    expect(scopeSources("group", ["memory#private"])).toEqual(["memory", "memory#redacted"]);
  });
});
