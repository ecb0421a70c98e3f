import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { RecallLog, readRecall } from "@engram/core/internal";
import { median, percentile, timed } from "./stats.js";

/** What `engram-bench recall` measured. */
export interface RecallLogResult {
  /** Entries in the log when the timed flushes began (the log keeps at most 5,000). */
  entries: number;
  flushes: number;
  /** One search's flush (six hits, as `engram search` records at its `close`). */
  flushMs: { p50: number; p95: number; max: number };
  /**
   * `readRecall` (what a search blending relevance, promotion candidates, the audit and the recall
   * guard read): the process's first read of the log, then p50 and max of the reads after each
   * timed flush (the process has read before: the new batch, or everything after a fold).
   */
  readMs: { first: number; p50: number; max: number };
}

/**
 * Time the recall log as it grows: fill a new workspace's log to `entries` (with the real
 * `RecallLog`, flushing every 24 events, about as a long-lived process does), read it once, then
 * time `flushes` flushes of one search each (each by a new `RecallLog`, as a one-shot command
 * makes), each followed by a read.
 */
export async function benchRecallLog(opts: {
  entries: number;
  flushes: number;
}): Promise<RecallLogResult> {
  const ws = await mkdtemp(path.join(tmpdir(), "engram-bench-recall-"));
  try {
    await mkdir(path.join(ws, "memory"));
    const hits = (i: number) =>
      Array.from({ length: 6 }, (_, j) => {
        const start = ((i * 6 + j) % 1_000) * 5 + 1;
        const day = String((Math.floor((i * 6 + j) / 1_000) % 28) + 1).padStart(2, "0");
        return {
          path: `memory/2026-01-${day}.md`,
          startLine: start,
          endLine: start + 4,
          tier: "short" as const,
        };
      });
    // Flushed about as a long-lived process flushes (every 25 events): every 4 searches of 6.
    const fill = new RecallLog(ws);
    const searches = Math.ceil(opts.entries / 6);
    for (let i = 0; i < searches; i++) {
      fill.noteSearch(`query ${i} about topic ${i % 97}`, hits(i));
      if (i % 4 === 3) await fill.flush();
    }
    await fill.flush();
    let entries = 0;
    const first = await timed(async () => {
      entries = Object.keys((await readRecall(ws))?.entries ?? {}).length;
    });
    const flushMs: number[] = [];
    const readMs: number[] = [];
    for (let i = 0; i < opts.flushes; i++) {
      const log = new RecallLog(ws);
      log.noteSearch(`timed query ${i}`, hits(searches + i));
      flushMs.push(await timed(() => log.flush()));
      readMs.push(await timed(() => readRecall(ws)));
    }
    return {
      entries,
      flushes: opts.flushes,
      flushMs: {
        p50: median(flushMs),
        p95: percentile(flushMs, 95),
        max: Math.max(...flushMs),
      },
      readMs: { first, p50: median(readMs), max: Math.max(...readMs) },
    };
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}
