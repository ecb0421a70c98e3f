import { appendFile, mkdir, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config/load.js";
import type { FileRecord } from "../src/driver/records.js";
import { isEngramError } from "../src/errors.js";
import { scanTranscripts, transcriptDelta, transcriptFolder } from "../src/sessions/index.js";
import { readMemoryFile } from "../src/workspace/read.js";
import type { ScannedFile } from "../src/workspace/scan.js";
import { tempDir, writeFiles } from "./workspace/helpers.js";

const sessions = (over: Record<string, unknown> = {}) =>
  resolveConfig({ sessions: { enabled: true, ...over } }).sessions;
const line = (text: string) => `${JSON.stringify({ role: "user", content: text })}\n`;

describe("scanTranscripts", () => {
  it("lists *.jsonl directly in sessions/, skipping sub-folders, symlinks and other files", async () => {
    const ws = await tempDir();
    await writeFiles(ws, {
      "sessions/b.jsonl": line("b"),
      "sessions/a.JSONL": line("a"),
      "sessions/notes.md": "# not a transcript\n",
      "sessions/alpha/c.jsonl": line("c"),
      "memory/x.jsonl": line("x"),
    });
    await symlink(path.join(ws, "sessions/b.jsonl"), path.join(ws, "sessions/link.jsonl"));
    const { files, warnings } = scanTranscripts(ws, sessions());
    expect(files.map((f) => f.path)).toEqual(["sessions/a.JSONL", "sessions/b.jsonl"]);
    expect(warnings).toEqual([]);
  });

  it("with an agent, only that agent's transcripts (per-agent isolation)", async () => {
    const ws = await tempDir();
    await writeFiles(ws, {
      "sessions/top.jsonl": line("top"),
      "sessions/alpha/a1.jsonl": line("a1"),
      "sessions/beta/b1.jsonl": line("b1"),
    });
    const { files } = scanTranscripts(ws, sessions({ agent: "alpha" }));
    expect(files.map((f) => f.path)).toEqual(["sessions/alpha/a1.jsonl"]);
    expect(transcriptFolder(ws, sessions({ agent: "alpha" }))).toBe(
      path.join(ws, "sessions/alpha"),
    );
  });

  it("is empty when disabled or when the folder does not exist yet; refuses .engram/", async () => {
    const ws = await tempDir();
    await writeFiles(ws, { "sessions/a.jsonl": line("a"), ".engram/s/x.jsonl": line("x") });
    expect(scanTranscripts(ws, resolveConfig({}).sessions).files).toEqual([]);
    expect(scanTranscripts(ws, sessions({ dir: "elsewhere" }))).toEqual({
      files: [],
      warnings: [],
    });
    const inside = scanTranscripts(ws, sessions({ dir: ".engram/s" }));
    expect(inside.files).toEqual([]);
    expect(inside.warnings[0]).toMatch(/inside \.engram/);
  });

  it("rejects an agent that is not one folder name", () => {
    for (const agent of ["../x", "a/b", ".hidden", ""]) {
      expect(() => sessions({ agent })).toThrow(/sessions\.agent|agent must be one folder name/);
    }
    expect(sessions({ agent: "助手-1" }).agent).toBe("助手-1");
  });
});

describe("transcriptDelta", () => {
  async function setup() {
    const ws = await tempDir();
    const abs = path.join(ws, "s.jsonl");
    await writeFile(abs, line("one") + line("two"));
    const stat = async (): Promise<ScannedFile> => {
      const { files } = scanTranscripts(ws, sessions({ dir: "." }));
      return files[0] as ScannedFile;
    };
    const indexed = await stat();
    const known: FileRecord = {
      path: indexed.path,
      source: "sessions",
      tier: "short",
      hash: "h",
      mtimeMs: indexed.mtimeMs,
      size: indexed.size,
    };
    return { abs, stat, known };
  }
  const limits = { deltaBytes: 10_000, deltaMessages: 3 };

  it("new → at once; unchanged → nothing", async () => {
    const { stat, known } = await setup();
    expect(await transcriptDelta(await stat(), undefined, limits)).toBe("new");
    expect(await transcriptDelta(await stat(), known, limits)).toBe("unchanged");
  });

  it("waits until the transcript grew by deltaMessages lines", async () => {
    const { abs, stat, known } = await setup();
    await appendFile(abs, line("three") + line("four"));
    expect(await transcriptDelta(await stat(), known, limits)).toBe("waiting");
    await appendFile(abs, line("five"));
    expect(await transcriptDelta(await stat(), known, limits)).toBe("grown");
  });

  it("or by deltaBytes, whichever comes first (counted in bytes, CJK included)", async () => {
    const { abs, stat, known } = await setup();
    await appendFile(abs, line("长".repeat(40)));
    expect(await transcriptDelta(await stat(), known, { deltaBytes: 100, deltaMessages: 50 })).toBe(
      "grown",
    );
    expect(await transcriptDelta(await stat(), known, { deltaBytes: 200, deltaMessages: 50 })).toBe(
      "waiting",
    );
  });

  it("a transcript that shrank or was rewritten in place is re-indexed at once", async () => {
    const { abs, stat, known } = await setup();
    await truncate(abs, 5);
    expect(await transcriptDelta(await stat(), known, limits)).toBe("rewritten");
    const { abs: abs2, stat: stat2, known: known2 } = await setup();
    await utimes(abs2, new Date(), new Date(Date.now() + 5000));
    expect(await transcriptDelta(await stat2(), known2, limits)).toBe("rewritten");
  });
});

describe("memory_get and transcripts", () => {
  it("refuses a transcript path: results from sessions are snippets only", async () => {
    const ws = await tempDir();
    await writeFiles(ws, { "sessions/s.jsonl": line("私密对话"), "MEMORY.md": "# ok\n" });
    await mkdir(path.join(ws, "memory"), { recursive: true });
    for (const extraPaths of [[], ["sessions"]]) {
      const error = await readMemoryFile(ws, "sessions/s.jsonl", { extraPaths }).catch((e) => e);
      expect(isEngramError(error, "PATH_NOT_ALLOWED")).toBe(true);
    }
    expect((await readMemoryFile(ws, "MEMORY.md")).text).toBe("# ok");
  });
});
