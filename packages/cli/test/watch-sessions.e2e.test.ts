import type { ChildProcessByStdio } from "node:child_process";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { createMemory, isEngramError } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, eventually, removeDir, startWatchJson, tempDir, writeFiles } from "./helpers.js";

const msg = (role: string, content: unknown) => `${JSON.stringify({ role, content })}\n`;

interface Hit {
  path: string;
  startLine: number;
  endLine: number;
  source: string;
}

async function search(ws: string, query: string, sync = true): Promise<Hit[]> {
  const args = ["search", query, "--json", "--workspace", ws, ...(sync ? [] : ["--no-sync"])];
  const { stdout, code, stderr } = await engram(args);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout).results;
}

describe("session transcripts", () => {
  let ws: string;
  beforeEach(async () => {
    ws = await tempDir();
    await engram(["init", "--workspace", ws]);
  });
  afterEach(async () => {
    await removeDir(ws);
  });

  it("are indexed as source sessions, cite real .jsonl lines, stay per agent, and are not readable", async () => {
    await writeFiles(ws, {
      "engram.config.json": JSON.stringify({
        sessions: { enabled: true, agent: "alpha" },
        // Transcripts are log files: their chunk size is chunking.logs.
        chunking: { tokens: 24, overlap: 0, logs: { tokens: 24, overlap: 0 } },
      }),
      "memory/notes.md": "# Notes\n\nThe okapi runbook lives in ops/.\n",
      "sessions/alpha/s1.jsonl": [
        msg("user", "hello there, let us plan the week ahead together"),
        "{this line is broken\n",
        msg("assistant", [{ type: "text", text: "Sure. First the okapi migration." }]),
        msg("user", "还有回滚计划：先停写入，再切换到旧版本数据库。"),
        msg("assistant", "Noted the rollback plan with the numbat checklist."),
      ].join(""),
      "sessions/beta/s2.jsonl": msg("user", "beta agent secret wombat"),
      "sessions/top.jsonl": msg("user", "top level wombat"),
    });
    const synced = await engram(["sync", "--json", "--workspace", ws]);
    expect(synced.code).toBe(0);
    expect(JSON.parse(synced.stdout).warnings).toEqual([
      expect.stringMatching(/sessions\/alpha\/s1\.jsonl: 1 malformed line\(s\) skipped \(line 2\)/),
    ]);

    // A hit names the transcript line the words are on.
    const lines = (await readFile(join(ws, "sessions/alpha/s1.jsonl"), "utf8")).split("\n");
    for (const [query, word] of [
      ["回滚计划", "回滚计划"],
      ["numbat", "numbat"],
    ] as const) {
      const hit = (await search(ws, query)).find((h) => h.source === "sessions");
      expect(hit?.path).toBe("sessions/alpha/s1.jsonl");
      const cited = lines.slice((hit?.startLine ?? 1) - 1, hit?.endLine).join("\n");
      expect(cited).toContain(word);
      expect((hit?.endLine ?? 0) - (hit?.startLine ?? 0)).toBeLessThan(3);
    }
    // Only agent alpha's transcripts.
    expect(await search(ws, "wombat")).toEqual([]);

    // memory_get refuses transcripts: results from sessions are snippets only.
    const get = await engram(["get", "sessions/alpha/s1.jsonl", "--workspace", ws]);
    expect(get.code).toBe(2);
    expect(get.stderr).toMatch(/is not a memory file/);

    const memory = await createMemory({ workspace: ws, store: sqliteStore() });
    try {
      const paths = async (sources?: string[]) =>
        (await memory.search("okapi", sources ? { sources } : {})).results.map((r) => r.path);
      expect((await paths()).sort()).toEqual(["memory/notes.md", "sessions/alpha/s1.jsonl"]);
      expect(await paths(["memory"])).toEqual(["memory/notes.md"]);
      expect(await paths(["sessions"])).toEqual(["sessions/alpha/s1.jsonl"]);
      const refused = await memory.get("sessions/alpha/s1.jsonl").catch((e: unknown) => e);
      expect(isEngramError(refused, "PATH_NOT_ALLOWED")).toBe(true);
      expect((await memory.status()).sessions).toEqual({ indexed: 1, deferred: 0 });
    } finally {
      await memory.close();
    }

    // A small growth waits for the delta; sync --force indexes everything.
    await appendFile(join(ws, "sessions/alpha/s1.jsonl"), msg("user", "a lone capybara"));
    const deferred = JSON.parse((await engram(["sync", "--json", "--workspace", ws])).stdout);
    expect(deferred.deferred).toBe(1);
    expect(await search(ws, "capybara")).toEqual([]);
    expect((await engram(["status", "--workspace", ws])).stdout).toMatch(
      /Sessions\s+1 transcript\(s\) indexed, 1 grown but under the re-index delta/,
    );
    expect((await engram(["sync", "--force", "--workspace", ws])).code).toBe(0);
    expect((await search(ws, "capybara")).map((h) => h.path)).toEqual(["sessions/alpha/s1.jsonl"]);

    // Turning sessions off removes them from the index.
    await writeFiles(ws, { "engram.config.json": "{}" });
    expect(await search(ws, "numbat")).toEqual([]);
  }, 120_000);

  describe("with engram watch", () => {
    let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
    afterEach(() => {
      child?.kill("SIGKILL");
    });

    it("re-indexes a growing transcript in the background once it passes deltaMessages", async () => {
      await writeFiles(ws, {
        "engram.config.json": JSON.stringify({
          sessions: { enabled: true, deltaMessages: 3, deltaBytes: 100_000 },
        }),
      });
      const watch = await startWatchJson(ws);
      child = watch.child;
      const events = watch.events;
      const transcript = join(ws, "sessions/run-1.jsonl");
      const found = async (q: string) => (await search(ws, q, false)).map((h) => h.path);

      // A new transcript is indexed at once.
      await writeFiles(ws, { "sessions/run-1.jsonl": msg("user", "start the okapi deploy") });
      expect(await eventually(async () => (await found("okapi")).length === 1, 20_000)).toBe(true);

      // Two more messages: under the delta of 3, the watcher syncs but leaves it as indexed.
      await appendFile(transcript, msg("assistant", "deploying") + msg("user", "and the 袋熊 too"));
      expect(
        await eventually(
          async () => events.some((e) => e.event === "sync" && e.deferred === 1),
          20_000,
        ),
      ).toBe(true);
      expect(await found("袋熊")).toEqual([]);

      // The third message passes the delta: re-indexed without anyone running sync.
      await appendFile(transcript, msg("assistant", "done"));
      expect(
        await eventually(
          async () => (await found("袋熊")).join() === "sessions/run-1.jsonl",
          20_000,
        ),
      ).toBe(true);
    }, 120_000);
  });
});
