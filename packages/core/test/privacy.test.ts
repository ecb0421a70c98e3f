import { describe, expect, it } from "vitest";
import {
  isPersonalPath,
  isSensitiveFile,
  overlapsPrivate,
  privateRanges,
  privateSpans,
  readFrontMatter,
  redactPrivate,
  stripPrivate,
  unclosedSpanWarning,
  writeFrontMatter,
} from "../src/internal/index.js";

describe("front matter", () => {
  it("splits YAML from the body and counts its lines", () => {
    const doc = readFrontMatter("---\nstatus: done\ntags: [a, b]\n---\n# Title\nbody\n");
    expect(doc.data).toEqual({ status: "done", tags: ["a", "b"] });
    expect(doc.body).toBe("# Title\nbody\n");
    expect(doc.lines).toBe(4);
  });

  it("leaves a file without front matter whole", () => {
    expect(readFrontMatter("# Title\n---\n")).toEqual({
      data: {},
      body: "# Title\n---\n",
      lines: 0,
    });
  });

  it("refuses YAML that is not a map, naming the file", () => {
    expect(() => readFrontMatter("---\n- a\n---\n", "memory/x.md")).toThrow(
      /memory\/x\.md.*key: value/,
    );
    expect(() => readFrontMatter("---\na: [\n---\n")).toThrow(
      expect.objectContaining({ code: "FRONT_MATTER_INVALID" }),
    );
  });

  it("round-trips through writeFrontMatter", () => {
    const text = writeFrontMatter({ status: "active", 名前: "记忆" }, "# P\n");
    expect(readFrontMatter(text)).toEqual({
      data: { status: "active", 名前: "记忆" },
      body: "# P\n",
      lines: 4,
    });
    expect(writeFrontMatter({}, "x")).toBe("x");
  });
});

describe("privacy", () => {
  const text = [
    "# Notes",
    "public line",
    "<!-- engram:private -->",
    "my bank PIN is 1234",
    "<!-- /engram:private -->",
    "also public",
  ].join("\n");

  it("finds private blocks with their markers", () => {
    expect(privateRanges(text)).toEqual([{ startLine: 3, endLine: 5 }]);
    expect(overlapsPrivate({ startLine: 4, endLine: 4 }, privateRanges(text))).toBe(true);
    expect(overlapsPrivate({ startLine: 6, endLine: 6 }, privateRanges(text))).toBe(false);
  });

  it("strips private blocks and fails closed on an unclosed one", () => {
    expect(stripPrivate(text)).toBe("# Notes\npublic line\nalso public");
    expect(stripPrivate("a\n<!-- engram:private -->\nsecret\nmore")).toBe("a");
  });

  it("treats sensitive or unreadable front matter as a private file", () => {
    expect(isSensitiveFile("---\nsensitive: true\n---\nx")).toBe(true);
    expect(isSensitiveFile("---\nsensitive: [\n---\nx")).toBe(true);
    expect(isSensitiveFile("---\nsensitive: false\n---\nx")).toBe(false);
    expect(stripPrivate("---\nsensitive: true\n---\nsecret")).toBe("");
  });
});

describe("private spans wherever they open and close", () => {
  it("finds inline spans, spans across lines and unclosed ones, with offsets and lines", () => {
    const text =
      "a <!-- engram:private -->x<!--/engram:private--> b\nc <!-- ENGRAM:PRIVATE -->d\ne\nf <!-- /engram:private --> g\nh <!-- engram:private -->tail\nend";
    const spans = privateSpans(text);
    expect(spans.map((s) => [s.startLine, s.endLine, s.closed])).toEqual([
      [1, 1, true],
      [2, 4, true],
      [5, 6, false],
    ]);
    expect(text.slice(spans[0]?.start, spans[0]?.end)).toBe(
      "<!-- engram:private -->x<!--/engram:private-->",
    );
    expect(redactPrivate(text)).toBe("a [private] b\nc [private]\n\n g\nh [private]\n");
    expect(redactPrivate(text).split("\n").length).toBe(text.split("\n").length);
    expect(stripPrivate(text)).toBe("a  b\nc \n g\nh ");
    expect(unclosedSpanWarning("memory/x.md", spans)).toMatch(/^memory\/x\.md:5: .*never closed/);
  });

  it("ignores a stray closing marker and a nested opening one", () => {
    const text =
      "<!-- /engram:private --> public\n<!-- engram:private --> a <!-- engram:private --> b <!-- /engram:private --> c";
    expect(redactPrivate(text)).toBe("<!-- /engram:private --> public\n[private] c");
  });

  it("counts any MEMORY.md as personal", () => {
    expect(isPersonalPath("memory/MEMORY.md")).toBe(true);
    expect(isPersonalPath("team/MEMORY.md")).toBe(true);
    expect(isPersonalPath("memory/MEMORY.md.bak")).toBe(false);
    expect(isPersonalPath("memory/long-term.md", ["memory/long-term.md"])).toBe(true);
  });
});
