import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { resolveConfig } from "@engram/core";
import { chunkRecords, createAnalyzer } from "@engram/core/internal";
import { afterEach, describe, expect, it } from "vitest";
import { synthesizeWorkspace, synthQueries, writeSynthWorkspace } from "../src/synth.js";
import { removeDir, tempDir } from "./helpers.js";

function digest(options: Parameters<typeof synthesizeWorkspace>[0]): string {
  const hash = createHash("sha256");
  for (const file of synthesizeWorkspace(options)) hash.update(`${file.path}\0${file.content}\0`);
  return hash.digest("hex");
}

describe("synthetic workspace", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await removeDir(dir);
    dir = undefined;
  });

  it("gives the same bytes for the same seed, and other bytes for another seed", () => {
    expect(digest({ chunks: 400, seed: 1 })).toBe(digest({ chunks: 400, seed: 1 }));
    expect(digest({ chunks: 400, seed: 2 })).not.toBe(digest({ chunks: 400, seed: 1 }));
  });

  it("hits the chunk count within 5%, counted as a sync with the default config counts", () => {
    const analyzer = createAnalyzer();
    const { chunking } = resolveConfig();
    for (const target of [50, 1_000, 3_000]) {
      let chunks = 0;
      for (const file of synthesizeWorkspace({ chunks: target })) {
        const info = { path: file.path, source: "memory" as const, tier: "short" as const };
        chunks += chunkRecords(info, file.content, analyzer, chunking).length;
      }
      expect(Math.abs(chunks - target) / target).toBeLessThanOrEqual(0.05);
    }
  });

  it("mixes short daily-log entries, long notes with headings, and ~15% Chinese files", () => {
    const files = [...synthesizeWorkspace({ chunks: 2_000 })];
    const logs = files.filter((f) => /^memory\/(.+\/log\/)?\d{4}-\d{2}-\d{2}\.md$/.test(f.path));
    const notes = files.filter(
      (f) => f.path.includes("/long-term/") || /projects\/[^/]+\/[^/]+\.md$/.test(f.path),
    );
    expect(files[0]?.path).toBe("MEMORY.md");
    expect(logs.length).toBeGreaterThan(files.length * 0.3);
    expect(notes.length).toBeGreaterThan(files.length * 0.3);
    // Log entries are `## HH:MM` headings followed by 1–5 lines.
    const entries = logs[0]?.content.split(/^## \d\d:\d\d\n\n/m).slice(1) ?? [];
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const entry of entries) {
      const lines = entry.trim().split("\n");
      expect(lines.length).toBeGreaterThanOrEqual(1);
      expect(lines.length).toBeLessThanOrEqual(5);
    }
    expect(notes.every((f) => /^# .+\n/.test(f.content) && /^## /m.test(f.content))).toBe(true);
    const zh = files.filter((f) => f.language === "zh");
    expect(zh.length / files.length).toBeGreaterThan(0.1);
    expect(zh.length / files.length).toBeLessThan(0.2);
    expect(zh.every((f) => /[\u4e00-\u9fff]{4}/.test(f.content))).toBe(true);
  });

  it("writes the files it generates and counts them", async () => {
    dir = await tempDir("engram-synth-");
    const summary = writeSynthWorkspace(dir, { chunks: 300, seed: 3 });
    const files = [...synthesizeWorkspace({ chunks: 300, seed: 3 })];
    expect(summary.files).toBe(files.length);
    expect(summary.chunks).toBe(files.reduce((n, f) => n + f.chunks, 0));
    const last = files.at(-1);
    expect(last && (await readFile(join(dir, last.path), "utf8"))).toBe(last?.content);
  });

  it("refuses a chunk count that is not a positive whole number", () => {
    expect(() => [...synthesizeWorkspace({ chunks: 0 })]).toThrow(/positive whole number/);
    expect(() => [...synthesizeWorkspace({ chunks: 1.5 })]).toThrow(/positive whole number/);
  });

  it("has a fixed English and Chinese query set whose terms occur in the corpus", () => {
    const queries = synthQueries({ en: 20, zh: 5 });
    expect(queries).toEqual(synthQueries({ en: 20, zh: 5 }));
    expect(queries.filter((q) => q.language === "zh")).toHaveLength(5);
    const analyzer = createAnalyzer();
    const corpus = new Set<string>();
    for (const file of synthesizeWorkspace({ chunks: 2_000 })) {
      for (const term of analyzer.terms(file.content)) corpus.add(term);
    }
    for (const q of queries) {
      expect(analyzer.terms(q.text).some((t) => corpus.has(t))).toBe(true);
    }
  });
});
