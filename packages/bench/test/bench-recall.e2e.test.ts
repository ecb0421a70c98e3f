import { describe, expect, it } from "vitest";
import { bench } from "./helpers.js";

describe("engram-bench recall", () => {
  it("fills the log to each size and times flushes (one of them folding the batches) and reads", async () => {
    const run = await bench(["recall", "--entries", "30,300", "--flushes", "70", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const { results } = JSON.parse(run.stdout) as {
      results: Array<{
        entries: number;
        flushes: number;
        flushMs: { p50: number; p95: number; max: number };
        readMs: { first: number; p50: number; max: number };
      }>;
    };
    expect(results.map((r) => [r.entries, r.flushes])).toEqual([
      [30, 70],
      [300, 70],
    ]);
    for (const r of results) {
      expect(r.flushMs.p50).toBeGreaterThan(0);
      expect(r.flushMs.max).toBeGreaterThanOrEqual(r.flushMs.p95);
      expect(r.readMs.first).toBeGreaterThan(0);
      expect(r.readMs.max).toBeGreaterThanOrEqual(r.readMs.p50);
    }
  }, 60_000);

  it("names the flag a bad size came from", async () => {
    const run = await bench(["recall", "--entries", "many"]);
    expect(run.code).toBe(2); // a usage error
    expect(run.stderr).toMatch(/--entries and --flushes take whole numbers/);
  });
});
