import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PerfReport, sizesWithRuns } from "../src/perf.js";
import { bench, removeDir, tempDir } from "./helpers.js";

describe("engram-bench perf (built CLI, real stores, child processes)", () => {
  let out: string;
  let run: Awaited<ReturnType<typeof bench>>;

  beforeAll(async () => {
    out = await tempDir("engram-perf-out-");
    run = await bench([
      "perf",
      "--sizes",
      "300",
      "--runs",
      "1",
      "--stores",
      "sqlite,memory",
      "--dims",
      "32",
      "--out",
      out,
      "--json",
    ]);
  }, 180_000);
  afterAll(() => removeDir(out));

  it("measures every phase of every store and reports the JSON it wrote", async () => {
    expect(run.stderr).toContain("300 chunks: wrote");
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as PerfReport & { files: Record<string, string> };
    expect(report.settings).toMatchObject({
      sizes: [300],
      stores: ["sqlite", "memory"],
      runs: 1,
      dims: 32,
    });
    expect(report.corpora).toHaveLength(1);
    const corpus = report.corpora[0];
    expect(Math.abs((corpus?.chunks ?? 0) - 300)).toBeLessThanOrEqual(15);
    expect(report.results.map((r) => r.store)).toEqual(["sqlite", "memory"]);
    for (const r of report.results) {
      expect(r.errors).toEqual([]);
      const k = r.keyword;
      const v = r.vector;
      // The store indexed exactly the chunks the generator counted, with and without vectors.
      expect(k?.chunks).toBe(corpus?.chunks);
      expect(v?.chunks).toBe(corpus?.chunks);
      expect(k?.files).toBe(corpus?.files);
      expect(k?.coldSync.chunksPerSecond).toBeGreaterThan(0);
      expect(k?.resync.filesPerSecond).toBeGreaterThan(0);
      expect(k?.appendSync?.p50Ms).toBeGreaterThan(0);
      expect(k?.readHashFloorMs).toBeGreaterThan(0);
      expect(k?.coldSync.cpuMs).toBeGreaterThan(0);
      expect(k?.search.keyword.cpuP50Ms).toBeGreaterThan(0);
      expect(v?.coldSync.embedMs).toBeGreaterThan(0);
      expect(v?.coldSync.embedMs).toBeLessThan(v?.coldSync.medianMs ?? 0);
      for (const l of [
        k?.search.keyword,
        k?.search.storeText,
        v?.search.vector,
        v?.search.hybridWeighted,
        v?.search.hybridRrf,
        v?.search.storeVector,
      ]) {
        expect(l?.p50Ms).toBeGreaterThan(0);
        expect(l?.p95Ms).toBeGreaterThanOrEqual(l?.p50Ms ?? 0);
      }
      // A new process's first search: one-shot, long-lived (after core's warm-up), the store's own.
      const firsts = [k?.firstQuery, v?.firstQuery, k?.firstQueryWarm, v?.firstQueryWarm];
      for (const first of [...firsts, k?.firstStoreQuery, v?.firstStoreQuery]) {
        expect(first?.processes).toBeGreaterThan(0);
        expect(first?.searchMs).toBeGreaterThan(0);
        expect(first?.closeMs).toBeGreaterThan(0);
      }
      expect(k?.firstQuery?.warmUpMs).toBeUndefined();
      expect(k?.firstQueryWarm?.warmUpMs).toBeGreaterThan(0);
      expect(v?.firstQueryWarm?.warmUpMs).toBeGreaterThan(0);
      // Vectors take room: the embedded index is bigger than the keyword-only one.
      expect(v?.diskBytes).toBeGreaterThan(k?.diskBytes ?? 0);
      expect(k?.peakRssMb).toBeGreaterThan(20);
      expect(k?.peakRssMb).toBeLessThan(2048);
    }
  });

  it("writes dated and latest JSON, the Markdown table and the SVG chart", async () => {
    const report = JSON.parse(run.stdout) as PerfReport & { files: Record<string, string> };
    const day = report.date.slice(0, 10);
    expect(report.files).toEqual({
      json: join(out, `perf-${day}.json`),
      latest: join(out, "perf-latest.json"),
      markdown: join(out, "perf.md"),
      svg: join(out, "perf-latency.svg"),
    });
    const dated = JSON.parse(await readFile(join(out, `perf-${day}.json`), "utf8"));
    expect(dated).toEqual(JSON.parse(await readFile(join(out, "perf-latest.json"), "utf8")));
    expect(dated.results).toHaveLength(2);
    const md = await readFile(join(out, "perf.md"), "utf8");
    expect(md).toMatch(/\| sqlite \| \d+ \| \d+ \|/);
    expect(md).toMatch(/\| memory \| \d+ \| \d+ \|/);
    expect(md).toContain("Targets (issue 7, SQLite)");
    const svg = await readFile(join(out, "perf-latency.svg"), "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("sqlite hybrid");
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
  });

  it("refuses an unknown store and a bad size with a hint", async () => {
    const store = await bench(["perf", "--stores", "oracle", "--sizes", "100"]);
    expect(store.code).not.toBe(0);
    expect(store.stderr).toMatch(/unknown store "oracle"/);
    expect(store.stderr).toMatch(/sqlite/);
    const size = await bench(["perf", "--sizes", "ten"]);
    expect(size.code).not.toBe(0);
    expect(size.stderr).toMatch(/--sizes: "ten" is not a number of chunks/);
    const runs = await bench(["perf", "--sizes", "100", "--runs", "3,1"]);
    expect(runs.code).not.toBe(0);
    expect(runs.stderr).toMatch(/2 run counts for 1 corpus sizes/);
    const zero = await bench(["perf", "--sizes", "100", "--runs", "0"]);
    expect(zero.code).not.toBe(0);
    expect(zero.stderr).toMatch(/--runs must be a positive whole number, got "0"/);
  });

  it("takes one run count for every size, or one per size in the order given", () => {
    const perSize = sizesWithRuns([100_000, 10_000], [1, 3]);
    expect(perSize.sizes).toEqual([10_000, 100_000]);
    expect(perSize.sizes.map(perSize.runsOf)).toEqual([3, 1]);
    const same = sizesWithRuns([10_000, 100_000], 2);
    expect(same.sizes.map(same.runsOf)).toEqual([2, 2]);
  });
});
