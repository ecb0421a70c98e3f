import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { queryHash, RecallLog, readQueryTexts, readRecall } from "../src/lifecycle/recall.js";
import { COMPACT_AT, compactRecall } from "../src/lifecycle/recall-files.js";
import { NOW, tempWorkspace } from "./lifecycle-fixture.js";

const EVENTS = ".engram/lifecycle/recall-events";

const hit = (startLine: number) => ({
  path: "memory/2026-01-10.md",
  startLine,
  endLine: startLine + 2,
  tier: "short" as const,
});

/** One flush of one search with `results` hits, as a one-shot `engram search` makes. */
async function searchOnce(ws: string, query: string, lines: number[]): Promise<void> {
  const log = new RecallLog(ws, () => NOW);
  log.noteSearch(query, lines.map(hit));
  await log.flush();
}

async function batches(ws: string): Promise<string[]> {
  return (await readdir(path.join(ws, EVENTS)).catch(() => [])).filter((n) => n.endsWith(".json"));
}

async function totalHits(ws: string): Promise<number> {
  const recall = await readRecall(ws);
  return Object.values(recall?.entries ?? {}).reduce((sum, e) => sum + e.hits, 0);
}

describe("the recall log on disk", () => {
  it("adds one batch per flush, and readers see the counts of every batch", async () => {
    const ws = await tempWorkspace();
    expect(await readRecall(ws)).toBeNull();
    await searchOnce(ws, "deploy window", [1, 5]);
    await searchOnce(ws, "Deploy Window ", [1]); // the same query, normalised
    await searchOnce(ws, "部署 什么时候", [1]);
    expect(await batches(ws)).toHaveLength(3);
    const recall = await readRecall(ws);
    expect(recall?.entries["memory/2026-01-10.md#1-3"]).toMatchObject({
      hits: 3,
      queries: [queryHash("deploy window"), queryHash("部署 什么时候")],
    });
    expect(recall?.entries["memory/2026-01-10.md#5-7"]?.hits).toBe(1);
    expect([...(await readQueryTexts(ws)).values()].sort()).toEqual([
      "Deploy Window ",
      "部署 什么时候",
    ]);
  });

  it(`folds the batches into recall.json once ${COMPACT_AT} have gathered, with the same counts`, async () => {
    const ws = await tempWorkspace();
    for (let i = 0; i < COMPACT_AT - 1; i++) await searchOnce(ws, `query ${i}`, [1, 10]);
    expect(await batches(ws)).toHaveLength(COMPACT_AT - 1);
    expect(await totalHits(ws)).toBe(2 * (COMPACT_AT - 1));
    await searchOnce(ws, "the last one", [1]);
    expect(await batches(ws)).toEqual([]);
    const file = JSON.parse(
      await readFile(path.join(ws, ".engram/lifecycle/recall.json"), "utf8"),
    ) as { entries: Record<string, { hits: number; queries: string[] }>; folded: string[] };
    expect(file.folded).toHaveLength(COMPACT_AT);
    expect(file.entries["memory/2026-01-10.md#1-3"]?.hits).toBe(COMPACT_AT);
    expect(file.entries["memory/2026-01-10.md#1-3"]?.queries).toHaveLength(50); // capped
    expect(await totalHits(ws)).toBe(2 * COMPACT_AT - 1);
    expect((await readQueryTexts(ws)).get(queryHash("the last one"))).toBe("the last one");
  });

  it("never counts a batch twice: a compaction that crashed before its deletes, readers racing one", async () => {
    const ws = await tempWorkspace();
    for (let i = 0; i < 10; i++) await searchOnce(ws, `query ${i}`, [1]);
    const names = await batches(ws);
    const keep = await Promise.all(
      names.map(async (n) => [n, await readFile(path.join(ws, EVENTS, n))] as const),
    );
    await compactRecall(ws);
    // As if the process died after writing recall.json: the batches it counted are still there.
    for (const [n, bytes] of keep) await writeFile(path.join(ws, EVENTS, n), bytes);
    expect(await totalHits(ws)).toBe(10);
    await searchOnce(ws, "after the crash", [1]);
    expect(await totalHits(ws)).toBe(11);

    await compactRecall(ws);
    expect(await batches(ws)).toEqual([]);
    expect(await totalHits(ws)).toBe(11);
  });

  it("gives readers racing a compaction every hit once", async () => {
    const ws = await tempWorkspace();
    let total = 0;
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 30; i++) await searchOnce(ws, `query ${round} ${i}`, [1]);
      total += 30;
      // Readers read again and again while the compaction folds and deletes; some list a batch
      // before its delete and read it after.
      let compacting = true;
      const compaction = compactRecall(ws).finally(() => {
        compacting = false;
      });
      const reader = async () => {
        const seen: number[] = [];
        do seen.push(await totalHits(ws));
        while (compacting);
        return seen;
      };
      const seen = (await Promise.all([compaction, reader(), reader(), reader()])).slice(1).flat();
      expect(new Set(seen)).toEqual(new Set([total]));
    }
    expect(await batches(ws)).toEqual([]);
    expect(await totalHits(ws)).toBe(total);
  });

  it("reads again only what changed: new batches, or everything after a compaction", async () => {
    const ws = await tempWorkspace();
    for (let i = 0; i < 3; i++) await searchOnce(ws, `query ${i}`, [1]);
    const first = await readRecall(ws);
    expect(await totalHits(ws)).toBe(3);
    await searchOnce(ws, "one more", [1, 5]);
    expect(await readRecall(ws)).toBe(first); // the same copy, with the new batch folded in
    expect(first?.entries["memory/2026-01-10.md#1-3"]?.hits).toBe(4);
    expect(first?.entries["memory/2026-01-10.md#5-7"]?.hits).toBe(1);
    await compactRecall(ws); // as another process would: recall.json replaced, batches deleted
    const after = await readRecall(ws);
    expect(after).not.toBe(first);
    expect(await totalHits(ws)).toBe(5);
    // recall.json replaced by hand (restored from a backup): read again, not added to
    await writeFile(
      path.join(ws, ".engram/lifecycle/recall.json"),
      JSON.stringify({ version: 1, entries: {} }),
    );
    expect(await totalHits(ws)).toBe(0);
    await searchOnce(ws, "again", [1]);
    expect(await totalHits(ws)).toBe(1);
  });

  it("keeps the 5,000 most recently recalled stretches", async () => {
    const ws = await tempWorkspace();
    await searchOnce(ws, "first", [1]); // creates the folders
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + ((i * 7_919) % 5_010) * 1_000);
    const events = Array.from({ length: 5_010 }, (_, i) => ({
      kind: "hit",
      path: "memory/2026-01-10.md",
      startLine: 100 + i,
      endLine: 100 + i,
      at: at(i).toISOString(),
    }));
    await writeFile(
      path.join(ws, EVENTS, "zzzz-by-hand.json"),
      JSON.stringify({ version: 1, events, texts: {} }),
    );
    const entries = Object.values((await readRecall(ws))?.entries ?? {});
    expect(entries).toHaveLength(5_000);
    // The 11 least recently recalled are gone: "first" (at NOW, 2026-01-12) is not among them.
    const kept = new Set(entries.map((e) => e.lastAt));
    const dropped = events.filter((e) => !kept.has(e.at)).map((e) => e.at);
    expect(dropped.sort()).toEqual(
      events
        .map((e) => e.at)
        .sort()
        .slice(0, 11),
    );
    await compactRecall(ws);
    expect(Object.keys((await readRecall(ws))?.entries ?? {})).toHaveLength(5_000);
  });

  it("skips a batch torn by a crash and deletes it at the next compaction", async () => {
    const ws = await tempWorkspace();
    await searchOnce(ws, "kept", [1]);
    await writeFile(path.join(ws, EVENTS, "0000-torn.json"), '{"version":1,"events":[{"ki');
    expect(await totalHits(ws)).toBe(1);
    await compactRecall(ws);
    expect(await batches(ws)).toEqual([]);
    expect(await totalHits(ws)).toBe(1);
  });

  it("reads a recall.json written before batches existed, and adds to it", async () => {
    const ws = await tempWorkspace();
    const entry = {
      path: "memory/2026-01-10.md",
      startLine: 1,
      endLine: 3,
      queries: ["aaaaaaaaaaaa"],
      hits: 4,
      gets: 1,
      firstAt: "2026-01-01T00:00:00.000Z",
      lastAt: "2026-01-02T00:00:00.000Z",
    };
    await searchOnce(ws, "new", [1]); // creates the folders
    await rm(path.join(ws, EVENTS), { recursive: true });
    await writeFile(
      path.join(ws, ".engram/lifecycle/recall.json"),
      JSON.stringify({ version: 1, entries: { "memory/2026-01-10.md#1-3": entry } }),
    );
    await searchOnce(ws, "new", [1]);
    expect((await readRecall(ws))?.entries["memory/2026-01-10.md#1-3"]).toMatchObject({
      hits: 5,
      gets: 1,
      queries: ["aaaaaaaaaaaa", queryHash("new")],
      firstAt: entry.firstAt,
      lastAt: NOW.toISOString(),
    });
  });

  it("does not re-create a workspace that was removed (the flush fails quietly)", async () => {
    const ws = await tempWorkspace();
    const log = new RecallLog(ws, () => NOW);
    log.noteSearch("gone", [hit(1)]);
    await rm(ws, { recursive: true });
    await log.flush();
    await expect(readdir(ws)).rejects.toThrow(/ENOENT/);
  });
});
