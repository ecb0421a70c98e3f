import { describe, expect, it } from "vitest";
import {
  type ChunkingOptions,
  chunkId,
  chunkIds,
  chunkMarkdown,
  DEFAULT_CHUNKING,
} from "../../src/chunking/index.js";
import { isEngramError } from "../../src/errors.js";
import { expectValidChunks, sourceLines } from "./invariants.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const defaults: ChunkingOptions = { ...DEFAULT_CHUNKING };

function chunkAndCheck(source: string, options: ChunkingOptions = defaults) {
  const chunks = chunkMarkdown(source, options);
  expectValidChunks(source, chunks, options);
  return chunks;
}

function paragraph(words: number, seed = 0): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`word${(i * 7 + seed) % 97}`);
  return out.join(" ");
}

describe("chunkMarkdown", () => {
  it("defaults to 400 tokens with 80 of overlap", () => {
    expect(DEFAULT_CHUNKING).toEqual({ tokens: 400, overlap: 80 });
  });

  it("gives [] for empty or blank input", () => {
    expect(chunkMarkdown("")).toEqual([]);
    expect(chunkMarkdown("   \n\n\t\r\n  ")).toEqual([]);
    expect(chunkMarkdown("\ufeff")).toEqual([]);
  });

  it("keeps a small file in one chunk with exact lines", () => {
    const source = "# Title\n\nHello world.\n\n- a\n- b\n";
    const chunks = chunkAndCheck(source);
    expect(chunks).toEqual([
      {
        startLine: 1,
        endLine: 6,
        headings: ["Title"],
        text: "# Title\n\nHello world.\n\n- a\n- b",
        tokens: 8,
      },
    ]);
  });

  it("trims blank lines at both ends", () => {
    const chunks = chunkAndCheck("\n\n  \nsome text\n\n\n");
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ startLine: 4, endLine: 4, text: "some text" });
  });

  it("rejects bad options", () => {
    for (const bad of [
      { tokens: 0 },
      { tokens: -5 },
      { tokens: 1.5 },
      { tokens: Number.NaN },
      { overlap: -1 },
      { tokens: 100, overlap: 100 },
      { tokens: 50 }, // default overlap 80 does not fit
    ]) {
      let caught: unknown;
      try {
        chunkMarkdown("text", bad);
      } catch (error) {
        caught = error;
      }
      expect(isEngramError(caught, "INVALID_ARGUMENT"), JSON.stringify(bad)).toBe(true);
    }
    expect(chunkMarkdown("text", { tokens: 50, overlap: 0 })).toHaveLength(1);
  });

  it("never splits a 2,000-line fence", () => {
    const fence = [
      "```ts",
      ...Array.from({ length: 2_000 }, (_, i) => `const x${i} = ${i};`),
      "```",
    ];
    const source = ["# Code", "", paragraph(50), "", ...fence, "", paragraph(50, 3)].join("\n");
    const chunks = chunkAndCheck(source);
    const big = chunks.find((c) => c.text.startsWith("```ts"));
    expect(big).toMatchObject({ startLine: 5, endLine: 2_006 });
    expect(big?.tokens).toBeGreaterThan(400);
    expect(big?.headings).toEqual(["Code"]);
    expect(chunks.filter((c) => c.startLine <= 2_006 && c.endLine >= 5)).toHaveLength(1);
  });

  it("never splits fences inside lists or block quotes", () => {
    const code = (n: number, indent: string) =>
      Array.from({ length: n }, (_, i) => `${indent}line ${i} of some code here`);
    const source = [
      "# Notes",
      "",
      "- item one",
      "- item two with code:",
      "",
      "  ```sh",
      ...code(40, "  "),
      "  ```",
      "- item three",
      "",
      "> quoted",
      "> ~~~",
      ...code(40, "> "),
      "> ~~~",
      "",
      "1. ordered",
      "   > nested quote",
      "   > ```",
      ...code(30, "   > "),
      "   > ```",
    ].join("\n");
    for (const tokens of [40, 60, 100, 200]) {
      const options = { tokens, overlap: Math.floor(tokens / 4) };
      chunkAndCheck(source, options);
    }
    const chunks = chunkAndCheck(source, { tokens: 60, overlap: 10 });
    expect(chunks.some((c) => c.text.startsWith("  ```sh") && c.text.endsWith("  ```"))).toBe(true);
  });

  it("keeps a fence that fits together with its neighbours", () => {
    const source = ["intro", "", "```", "a", "b", "```", "", "outro"].join("\n");
    expect(chunkAndCheck(source)).toHaveLength(1);
  });

  it("treats an unclosed fence as running to the end of the file", () => {
    const source = [
      "# T",
      "",
      paragraph(60),
      "",
      "```",
      ...Array(300).fill("code code code code"),
      "",
    ].join("\n");
    const chunks = chunkAndCheck(source, { tokens: 100, overlap: 20 });
    expect(chunks[chunks.length - 1]?.text.startsWith("```")).toBe(true);
  });

  it("cuts 2,000 Chinese characters into ~5-7 chunks", () => {
    const sentence = "我们今天讨论了长期记忆的存储方案以及用户偏好的检索方法。"; // 28 chars
    let text = "";
    while (text.length < 2_000) text += sentence;
    text = text.slice(0, 2_000);
    // As one paragraph on a single line, and wrapped at 50 characters per line.
    const wrapped = text.match(/.{1,50}/gu)?.join("\n") ?? "";
    for (const source of [text, wrapped]) {
      const chunks = chunkAndCheck(source);
      expect(chunks.length).toBeGreaterThanOrEqual(5);
      expect(chunks.length).toBeLessThanOrEqual(7);
      for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(420);
    }
  });

  it("packs many short daily-log entries per chunk", () => {
    const entries = Array.from({ length: 300 }, (_, i) => {
      const h = String(9 + Math.floor(i / 60)).padStart(2, "0");
      const m = String(i % 60).padStart(2, "0");
      return `- ${h}:${m} did thing ${i}`;
    });
    const source = ["# 2026-01-02", "", ...entries, ""].join("\n");
    const chunks = chunkAndCheck(source);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.length).toBeLessThan(20);
    for (const chunk of chunks) {
      expect(chunk.text.split("\n").length).toBeGreaterThan(20);
      expect(chunk.headings).toEqual(["2026-01-02"]);
    }
    // Overlap repeats some entries.
    expect((chunks[1]?.startLine ?? 0) <= (chunks[0]?.endLine ?? 0)).toBe(true);
  });

  it("tracks nested heading paths, ATX and setext", () => {
    const section = (n: number) =>
      `${Array.from({ length: 6 }, (_, i) => paragraph(12, n * 10 + i)).join("\n")}\n`;
    const source = [
      "Top",
      "===",
      "",
      section(1),
      "## Alpha *one*",
      "",
      section(2),
      "### Deep `code` [link](http://x)",
      "",
      section(3),
      "## Beta ##",
      "",
      section(4),
      "Sub",
      "---",
      "",
      section(5),
      "#### Skipped level",
      "",
      section(6),
      "# Second",
      "",
      section(7),
    ].join("\n");
    const chunks = chunkAndCheck(source, { tokens: 100, overlap: 20 });
    const pathAt = (needle: string) => chunks.find((c) => c.text.startsWith(needle))?.headings;
    expect(pathAt("Top")).toEqual(["Top"]);
    expect(pathAt("## Alpha")).toEqual(["Top", "Alpha one"]);
    expect(pathAt("### Deep")).toEqual(["Top", "Alpha one", "Deep code link"]);
    expect(pathAt("## Beta")).toEqual(["Top", "Beta"]);
    expect(pathAt("Sub")).toEqual(["Top", "Sub"]);
    expect(pathAt("#### Skipped")).toEqual(["Top", "Sub", "Skipped level"]);
    expect(pathAt("# Second")).toEqual(["Second"]);
    // Each of those headings opens a chunk rather than ending one.
    for (const chunk of chunks) {
      const last = chunk.text.split("\n").at(-1) ?? "";
      expect(last.startsWith("#")).toBe(false);
    }
  });

  it("keeps a heading with the start of a block too big to follow it whole", () => {
    const long = Array.from({ length: 40 }, (_, i) => paragraph(10, i)).join("\n");
    const source = `intro\n\n# Big\n\n${long}\n\n## Next\n\n${long}`;
    const chunks = chunkAndCheck(source, { tokens: 100, overlap: 10 });
    for (const chunk of chunks) expect(/^#+ \S+$/.test(chunk.text)).toBe(false);
    expect(chunks.find((c) => c.text.startsWith("# Big"))?.text.length).toBeGreaterThan(100);
    expect(chunks.find((c) => c.text.startsWith("## Next"))?.headings).toEqual(["Big", "Next"]);
  });

  it("gives a chunk that starts mid-section the section's path", () => {
    const source = [
      "# A",
      "",
      "## B",
      "",
      ...Array.from({ length: 30 }, (_, i) => `${paragraph(20, i)}\n`),
    ].join("\n");
    const chunks = chunkAndCheck(source, { tokens: 100, overlap: 0 });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0]?.headings).toEqual(["A"]);
    for (const chunk of chunks.slice(1)) expect(chunk.headings).toEqual(["A", "B"]);
  });

  it("does not take headings from lists, block quotes or fences", () => {
    const source = "# Real\n\n- # in list\n\n> # in quote\n\n```\n# in fence\n```\n\nafter";
    const chunks = chunkAndCheck(source, { tokens: 5, overlap: 0 });
    expect(chunks.at(-1)).toMatchObject({ text: "after", headings: ["Real"] });
  });

  it("treats YAML front matter as one unit, not a heading", () => {
    const source = [
      "---",
      "title: My notes",
      "tags: [a, b]",
      "---",
      "",
      "Intro text.",
      "",
      "## Section",
      "",
      "Body.",
    ].join("\n");
    const whole = chunkAndCheck(source);
    expect(whole).toHaveLength(1);
    expect(whole[0]?.headings).toEqual([]);
    const small = chunkAndCheck(source, { tokens: 6, overlap: 0 });
    expect(small[0]).toMatchObject({ startLine: 1, endLine: 4, headings: [] });
    expect(small.find((c) => c.text.startsWith("## Section"))?.headings).toEqual(["Section"]);
    for (const chunk of small) expect(chunk.headings).not.toContain("title: My notes");
    // Closed with "..." too.
    const dots = chunkAndCheck("---\na: 1\n...\n\ntext", { tokens: 3, overlap: 0 });
    expect(dots[0]).toMatchObject({ startLine: 1, endLine: 3 });
  });

  it("keeps oversized front matter whole and never overlaps into it", () => {
    const yaml = Array.from({ length: 50 }, (_, i) => `key${i}: value number ${i}`);
    const source = ["---", ...yaml, "---", "", paragraph(40), "", paragraph(40, 1)].join("\n");
    const chunks = chunkAndCheck(source, { tokens: 60, overlap: 30 });
    expect(chunks[0]).toMatchObject({ startLine: 1, endLine: 52 });
    expect(chunks[1]?.startLine).toBeGreaterThan(52);
  });

  it("does not treat a later --- as front matter", () => {
    const chunks = chunkAndCheck("text\n\n---\nnot: yaml\n---\n\nmore", { tokens: 4, overlap: 0 });
    // A rule, then a setext heading, as Markdown says.
    expect(chunks.map((c) => [c.text, c.headings])).toEqual([
      ["text\n\n---", []],
      ["not: yaml\n---", ["not: yaml"]],
      ["more", ["not: yaml"]],
    ]);
  });

  it("overlaps consecutive chunks by at most `overlap` tokens of whole lines", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i} ${paragraph(6, i)}`);
    const source = lines.join("\n"); // one long paragraph
    const chunks = chunkAndCheck(source, { tokens: 100, overlap: 30 });
    expect(chunks.length).toBeGreaterThan(10);
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]?.startLine).toBeLessThanOrEqual(chunks[i - 1]?.endLine ?? 0);
    }
    const none = chunkAndCheck(source, { tokens: 100, overlap: 0 });
    for (let i = 1; i < none.length; i++) {
      expect(none[i]?.startLine).toBe((none[i - 1]?.endLine ?? 0) + 1);
    }
  });

  it("makes progress with the largest overlap and tiny chunks", () => {
    const source = Array.from({ length: 100 }, (_, i) => `entry ${i}`).join("\n\n");
    for (const [tokens, overlap] of [
      [1, 0],
      [2, 1],
      [3, 2],
      [10, 9],
      [400, 399],
    ] as const) {
      const chunks = chunkAndCheck(source, { tokens, overlap });
      expect(chunks.length).toBeGreaterThan(0);
    }
  });

  it("cuts a giant line into pieces at character boundaries", () => {
    const minified = Array.from({ length: 10_000 }, (_, i) => `f${i}(a,b);`).join("");
    const source = `# Bundle\n\nbefore\n${minified}\nafter\n`;
    const chunks = chunkAndCheck(source);
    const pieces = chunks.filter((c) => c.startLine === 4 && c.endLine === 4);
    expect(pieces.length).toBeGreaterThan(50);
    expect(pieces.map((p) => p.text).join("")).toBe(minified);
    for (const piece of pieces) {
      expect(piece.tokens).toBeLessThanOrEqual(400);
      if (piece !== pieces.at(-1)) expect(piece.tokens).toBeGreaterThan(390);
      expect(piece.headings).toEqual(["Bundle"]);
    }
    expect(chunks[0]?.text).toBe("# Bundle\n\nbefore");
    expect(chunks.at(-1)?.text).toBe("after");
    const ids = chunkIds("memory/bundle.md", chunks);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("never splits a surrogate pair when cutting a line", () => {
    const line = "😀𠀀".repeat(3_000);
    const chunks = chunkAndCheck(line, { tokens: 33, overlap: 5 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(LONE_SURROGATE.test(chunk.text)).toBe(false);
      expect(chunk.tokens).toBeLessThanOrEqual(33);
    }
    expect(chunks.map((c) => c.text).join("")).toBe(line);
  });

  it("gives the same chunks for CRLF, CR and LF input, and ignores a BOM", () => {
    const lf = `---\ntitle: x\n---\n# Head\n\n${paragraph(300)}\n\n\`\`\`\ncode\n\`\`\`\n\n- a\n- b\n`;
    const base = chunkAndCheck(lf, { tokens: 60, overlap: 10 });
    expect(chunkAndCheck(lf.replaceAll("\n", "\r\n"), { tokens: 60, overlap: 10 })).toEqual(base);
    expect(chunkAndCheck(lf.replaceAll("\n", "\r"), { tokens: 60, overlap: 10 })).toEqual(base);
    expect(chunkAndCheck(`\ufeff${lf}`, { tokens: 60, overlap: 10 })).toEqual(base);
  });

  it("holds its invariants on varied generated documents", () => {
    let seed = 42;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)] as T;
    const block = (): string[] => {
      const kind = next();
      if (kind < 0.15)
        return [`${"#".repeat(1 + Math.floor(next() * 4))} Heading ${Math.floor(next() * 100)}`];
      if (kind < 0.25) {
        const indent = pick(["", "  ", "> ", "- ", "1. "]);
        const cont = indent === "- " ? "  " : indent === "1. " ? "   " : indent;
        const fence = pick(["```", "~~~", "````"]);
        const body = Array.from(
          { length: Math.floor(next() * 40) },
          (_, i) => `${cont}x = ${i} ${paragraph(Math.floor(next() * 8))}`,
        );
        return [`${indent}${fence}js`, ...body, `${cont}${fence}`];
      }
      if (kind < 0.4)
        return Array.from(
          { length: 1 + Math.floor(next() * 20) },
          (_, i) => `- item ${i} ${paragraph(Math.floor(next() * 12), i)}`,
        );
      if (kind < 0.5)
        return Array.from({ length: 1 + Math.floor(next() * 10) }, () =>
          "长期记忆存储用户偏好".repeat(1 + Math.floor(next() * 10)),
        );
      if (kind < 0.55)
        return [
          "| a | b |",
          "|---|---|",
          ...Array.from({ length: 10 }, (_, i) => `| ${i} | ${paragraph(5, i)} |`),
        ];
      if (kind < 0.58) return ["x".repeat(Math.floor(next() * 5_000))];
      if (kind < 0.62) return ["Setext", pick(["===", "---"])];
      if (kind < 0.65) return ["", "   ", ""];
      return Array.from({ length: 1 + Math.floor(next() * 8) }, (_, i) =>
        paragraph(Math.floor(next() * 30), i),
      );
    };
    for (let doc = 0; doc < 150; doc++) {
      const lines: string[] = next() < 0.2 ? ["---", "a: 1", "---"] : [];
      const count = 1 + Math.floor(next() * 30);
      for (let b = 0; b < count; b++) lines.push(...block(), ...(next() < 0.8 ? [""] : []));
      const source = lines.join(pick(["\n", "\r\n"]));
      const tokens = pick([20, 50, 100, 400]);
      const overlap = pick([0, Math.floor(tokens / 5), tokens - 1]);
      const chunks = chunkMarkdown(source, { tokens, overlap });
      expectValidChunks(source, chunks, { tokens, overlap });
      expect(chunkMarkdown(source, { tokens, overlap })).toEqual(chunks);
    }
  });

  it("numbers lines like the file", () => {
    const source = "a\n\nb\r\nc\rd";
    expect(sourceLines(source)).toEqual(["a", "", "b", "c", "d"]);
    const chunks = chunkAndCheck(source, { tokens: 1, overlap: 0 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.text])).toEqual([
      [1, 1, "a"],
      [3, 4, "b\nc"], // 3 characters: one token
      [5, 5, "d"],
    ]);
  });
});

describe("chunkId", () => {
  const chunk = { startLine: 3, endLine: 9, text: "hello\nworld" };

  it("is 32 hex digits, stable across calls", () => {
    const id = chunkId("memory/a.md", chunk);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(chunkId("memory/a.md", { ...chunk })).toBe(id);
    expect(chunkId("memory/a.md", chunk, 0)).toBe(id);
    // Pinned: changing how ids are made needs an INDEX_FORMAT bump (every index is rebuilt).
    expect(id).toBe("5c47772a8998c246fb80041bd3b39196");
  });

  it("changes with path, lines, text and ordinal", () => {
    const id = chunkId("memory/a.md", chunk);
    expect(chunkId("memory/b.md", chunk)).not.toBe(id);
    expect(chunkId("memory/a.md", { ...chunk, startLine: 4 })).not.toBe(id);
    expect(chunkId("memory/a.md", { ...chunk, endLine: 10 })).not.toBe(id);
    expect(chunkId("memory/a.md", { ...chunk, text: "hello\nworld!" })).not.toBe(id);
    expect(chunkId("memory/a.md", chunk, 1)).not.toBe(id);
  });

  it("gives every chunk of a file a distinct id, the same on every run", () => {
    const line = "same ".repeat(2_000); // pieces with identical text
    const source = `# T\n\n${line}\n\nend`;
    const a = chunkIds("memory/x.md", chunkMarkdown(source));
    const b = chunkIds("memory/x.md", chunkMarkdown(source));
    expect(a).toEqual(b);
    expect(new Set(a).size).toBe(a.length);
  });
});
