import { describe, expect, it } from "vitest";
import { DEFAULT_CHUNKING } from "../src/chunking/index.js";
import { LINE_BREAK_MARK, malformedWarning, renderTranscript } from "../src/sessions/index.js";
import { chunkRecords } from "../src/sync/chunk-records.js";
import { createAnalyzer } from "../src/text/analyzer.js";

const jsonl = (...lines: unknown[]) =>
  `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`;

describe("renderTranscript", () => {
  it("writes one line per transcript line, so line N of the text is line N of the file", () => {
    const source = jsonl(
      { role: "user", content: "deploy the okapi service", timestamp: "2026-01-02T10:00:00Z" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Done." },
          { type: "tool_use", id: "t1" },
        ],
      },
      { type: "session", id: "abc" },
      { role: "assistant", text: "first line\nsecond line" },
    );
    const { text, messages, malformed, partial } = renderTranscript(source);
    expect(text.split("\n")).toEqual([
      "user (2026-01-02T10:00:00Z): deploy the okapi service",
      "assistant: Done.",
      "",
      `assistant: first line${LINE_BREAK_MARK}second line`,
      "",
    ]);
    expect({ messages, malformed, partial }).toEqual({
      messages: 3,
      malformed: [],
      partial: false,
    });
  });

  it("reads nested messages, string parts and numeric timestamps", () => {
    const { text } = renderTranscript(
      jsonl(
        { type: "message", message: { role: "user", content: ["回滚计划", { text: "在哪里" }] } },
        { role: "user", content: "hi", timestamp: 1767348000 },
      ),
    );
    expect(text.split("\n").slice(0, 2)).toEqual([
      "user: 回滚计划\n在哪里".replace("\n", LINE_BREAK_MARK),
      "user (2026-01-02T10:00:00.000Z): hi",
    ]);
  });

  it("skips malformed lines with their numbers, and leaves out a half-written last line", () => {
    const source = `${jsonl({ role: "user", content: "a" }, "{not json", "[1,2]", "")}{"role":"user","con`;
    const r = renderTranscript(source);
    expect(r.malformed).toEqual([2, 3]);
    expect(r.partial).toBe(true);
    expect(r.messages).toBe(1);
    expect(r.text).toBe("user: a\n\n\n\n");
    expect(malformedWarning("sessions/s.jsonl", r.malformed)).toMatch(
      /sessions\/s.jsonl: 2 malformed line\(s\) skipped \(line 2, 3\)/,
    );
    expect(malformedWarning("x", [])).toBeUndefined();
  });

  it("a complete last line without a newline is kept; roles never start Markdown syntax", () => {
    const r = renderTranscript('{"role":"# system","content":"```rm -rf```"}');
    expect(r).toMatchObject({ partial: false, messages: 1 });
    expect(r.text).toBe("system: ```rm -rf```\n");
  });

  it("chunks cite the transcript's own line ranges (CJK included)", () => {
    const lines = Array.from({ length: 40 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `第${i + 1}条消息：部署计划与回滚步骤 ${"细节".repeat(30)}`,
    }));
    const source = jsonl(...lines.slice(0, 20), "garbage", ...lines.slice(20));
    const { text } = renderTranscript(source);
    const chunks = chunkRecords(
      { path: "sessions/s.jsonl", source: "sessions", tier: "short" },
      text,
      createAnalyzer(),
      DEFAULT_CHUNKING,
    );
    expect(chunks.length).toBeGreaterThan(1);
    const fileLines = source.split("\n");
    for (const chunk of chunks) {
      // Every message in the chunk sits on the same line of the .jsonl file.
      const first = chunk.text.split("\n")[0] ?? "";
      const n = Number(/第(\d+)条/.exec(first)?.[1]);
      expect(fileLines[chunk.startLine - 1]).toContain(`第${n}条消息`);
      expect(chunk.source).toBe("sessions");
    }
    expect(chunks.at(-1)?.endLine).toBe(41);
  });
});
