import { describe, expect, it } from "vitest";
import type { PerfReport, PerfResult } from "../src/perf.js";
import type { KeywordPhase, VectorPhase } from "../src/perf-measure.js";
import { folderSizes, perfMarkdown, sqliteTargets } from "../src/report-perf.js";
import { lineChartSvg, perfLatencySvg } from "../src/svg-latency.js";

/**
 * Checks XML well-formedness: every tag closes in order, attributes are quoted, and text holds no
 * raw `<` or bare `&`. Returns the element names in document order.
 */
function wellFormed(xml: string): string[] {
  const stack: string[] = [];
  const names: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const text = xml.slice(i, lt === -1 ? xml.length : lt);
    if (/&(?!#\d+;|[a-z]+;)/.test(text)) throw new Error(`bare & in ${JSON.stringify(text)}`);
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(xml);
    if (!m) throw new Error(`malformed tag at ${lt}: ${xml.slice(lt, lt + 60)}`);
    const [, close, name = "", , selfClose] = m;
    if (close) {
      if (stack.pop() !== name) throw new Error(`</${name}> closes the wrong element`);
    } else {
      names.push(name);
      if (!selfClose) stack.push(name);
    }
    i = tag.lastIndex;
  }
  if (stack.length) throw new Error(`unclosed: ${stack.join(", ")}`);
  return names;
}

const lat = (p50Ms: number) => ({ p50Ms, p95Ms: p50Ms * 2, cpuP50Ms: p50Ms / 2, cpuP95Ms: p50Ms });

function keyword(chunks: number, overrides: Partial<KeywordPhase> = {}): KeywordPhase {
  return {
    files: chunks / 2,
    chunks,
    readHashFloorMs: 100,
    coldSync: {
      medianMs: 2000,
      runsMs: [2000],
      closeMs: 1,
      cpuMs: 1000,
      chunksPerSecond: chunks / 2,
      chunksPerCpuSecond: chunks,
    },
    resync: {
      medianMs: 200,
      runsMs: [200],
      cpuMs: 100,
      filesPerSecond: chunks / 0.4,
      filesPerCpuSecond: chunks / 0.2,
    },
    search: { keyword: lat(1.5), storeText: lat(1) },
    diskBytes: 2 ** 24,
    peakRssMb: 120,
    ...overrides,
  };
}

function vector(chunks: number, hybrid: number): VectorPhase {
  return {
    chunks,
    dims: 384,
    coldSync: {
      medianMs: 4000,
      runsMs: [4000],
      closeMs: 1,
      cpuMs: 3000,
      chunksPerSecond: chunks / 4,
      chunksPerCpuSecond: chunks / 3,
      embedMs: 1000,
      chunksPerSecondExEmbed: chunks / 3,
    },
    search: {
      vector: lat(hybrid / 2),
      hybridWeighted: lat(hybrid),
      hybridRrf: lat(hybrid),
      storeVector: lat(1),
    },
    diskBytes: 2 ** 25,
    peakRssMb: 200,
  };
}

function report(results: PerfResult[]): PerfReport {
  return {
    schema: 1,
    date: "2025-01-02T03:04:05.000Z",
    machine: {
      cpus: 2,
      cpuModel: "Test CPU <&>",
      memoryMb: 4096,
      node: "v20",
      platform: "linux-x64",
    },
    settings: {
      sizes: [10_000, 100_000],
      stores: ["sqlite", "memory"],
      runs: 1,
      dims: 384,
      seed: 1,
      queries: { en: 40, zh: 10 },
    },
    skipped: [{ store: "qdrant", reason: "QDRANT_URL is not set" }],
    corpora: [],
    results,
  };
}

const sample = report([
  {
    store: "sqlite",
    targetChunks: 10_000,
    runs: 3,
    keyword: keyword(10_000, {
      appendSync: lat(12),
      firstQuery: { processes: 5, openMs: 40, searchMs: 10, searchCpuMs: 9, closeMs: 3 },
      firstStoreQuery: { processes: 5, openMs: 40, searchMs: 4, searchCpuMs: 3.5, closeMs: 3 },
    }),
    vector: vector(10_000, 4),
    errors: [],
  },
  {
    store: "sqlite",
    targetChunks: 100_000,
    runs: 1,
    keyword: keyword(100_000, {
      peakRssMb: 350,
      // a report from before `close` was timed
      firstQuery: { processes: 5, openMs: 50, searchMs: 20, searchCpuMs: 19 },
    }),
    vector: vector(100_000, 40),
    errors: [],
  },
  {
    store: "memory",
    targetChunks: 10_000,
    runs: 3,
    keyword: keyword(10_000),
    vector: vector(10_000, 3),
    errors: [],
  },
  {
    store: "memory",
    targetChunks: 100_000,
    runs: 1,
    errors: [{ phase: "keyword", message: "exited with SIGKILL\nstack" }],
  },
]);

describe("perf latency chart", () => {
  it("is well-formed SVG with a line per series and a marker per point", () => {
    const svg = lineChartSvg(
      [
        {
          label: "a <b>",
          color: "#123456",
          points: [
            { x: 1e4, y: 2 },
            { x: 1e5, y: 20 },
          ],
        },
        { label: "c & d", color: "red", dashed: true, points: [{ x: 1e4, y: 0.5 }] },
      ],
      { title: 't & "q"', x: "x", y: "y" },
    );
    const names = wellFormed(svg);
    expect(names[0]).toBe("svg");
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(names.filter((n) => n === "polyline")).toHaveLength(1);
    expect(names.filter((n) => n === "circle")).toHaveLength(3);
    expect(svg).toContain("a &#60;b&#62;");
    expect(svg).toContain('stroke-dasharray="6 4"');
    // Coordinates stay inside the canvas.
    for (const [, v] of svg.matchAll(/c[xy]="(-?[\d.]+)"/g)) {
      expect(Number(v)).toBeGreaterThanOrEqual(0);
      expect(Number(v)).toBeLessThanOrEqual(720);
    }
  });

  it("draws larger latencies higher up (log scale) and survives no data or bad points", () => {
    const svg = lineChartSvg(
      [
        {
          label: "s",
          color: "blue",
          points: [
            { x: 10, y: 1 },
            { x: 100, y: 100 },
            { x: 1000, y: Number.NaN },
            { x: 0, y: 5 },
          ],
        },
      ],
      { title: "t", x: "x", y: "y" },
    );
    const ys = [...svg.matchAll(/<circle cx="[\d.]+" cy="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(ys).toHaveLength(2);
    expect(ys[1]).toBeLessThan(ys[0] as number);
    const empty = lineChartSvg([], { title: "t", x: "x", y: "y" });
    expect(wellFormed(empty)[0]).toBe("svg");
    expect(empty).toContain("no data");
  });

  it("charts hybrid and keyword p50 per store from a report", () => {
    const svg = perfLatencySvg(sample);
    wellFormed(svg);
    expect(svg).toContain("sqlite hybrid");
    expect(svg).toContain("memory keyword");
    expect(svg.match(/<polyline/g)).toHaveLength(2); // sqlite has two sizes in both modes
  });
});

describe("perf Markdown report", () => {
  it("tabulates every store and size, the failures, and the SQLite targets", () => {
    const md = perfMarkdown(sample);
    expect(md).toContain("| sqlite | 100,000 |");
    expect(md).toContain("| memory | 100,000 | – |");
    expect(md).toContain("memory @ 100,000 chunks, keyword phase: exited with SIGKILL");
    expect(md).not.toContain("stack");
    expect(md).toContain("qdrant: skipped, QDRANT_URL is not set");
    expect(md).toContain("perf-latency.svg");
    // The append + sync column: wall in the indexing table, CPU in the CPU table, "–" when absent.
    const rows = md.split("\n").filter((l) => l.startsWith("| sqlite | 10,000 |"));
    expect(rows[0]?.split(" | ")[8]).toBe("12.0 ms");
    expect(rows[2]?.split(" | ")[5]).toBe("6.00 ms");
    const older = md.split("\n").filter((l) => l.startsWith("| sqlite | 100,000 |"));
    expect(older[0]?.split(" | ")[8]).toBe("–");
    expect(md).toContain("Medians over 3 runs at 10,000 chunks, 1 run at 100,000 chunks;");
    // First query in a new process: open / close, then the search (wall / CPU).
    const first = md.slice(md.indexOf("## First query in a new process")).split("\n");
    expect(first.find((l) => l.startsWith("| sqlite | 10,000 |"))).toContain(
      "| 40.0 ms / 3.00 ms | 10.0 ms / 9.00 ms |",
    );
    // The store's own first query, last: keyword measured, vector absent.
    expect(first.find((l) => l.startsWith("| sqlite | 10,000 |"))).toMatch(
      /\| 4\.00 ms \/ 3\.50 ms \| – \|$/,
    );
    expect(first.find((l) => l.startsWith("| sqlite | 100,000 |"))).toContain(
      "| 50.0 ms | 20.0 ms / 19.0 ms |",
    );
    const targets = sqliteTargets(sample);
    const find = (text: string) => targets.filter((t) => t.label.includes(text));
    expect(find("≤ 5 ms at 10,000")[0]?.met).toBe(true);
    expect(find("≤ 30 ms at 100,000")[0]).toMatchObject({
      measured: "40.00 ms",
      met: false,
      cpuMeasured: "20.00 ms",
      cpuMet: true,
    });
    expect(md).toContain(
      "| hybrid search p50 ≤ 30 ms at 100,000 chunks | 40.00 ms | **no** | 20.00 ms | yes |",
    );
    expect(find("peak RSS")[0]).toMatchObject({ measured: "350 MB", met: false });
    expect(find("re-sync").every((t) => t.met)).toBe(true);
    expect(find("cold keyword-only")).toHaveLength(2);
  });
});

describe("perf folder sizes", () => {
  it("gives MB of 10⁶ bytes and the ratio to the raw data (Markdown, plus float32 vectors embedded)", () => {
    const row: PerfResult = {
      store: "lancedb",
      targetChunks: 10_000,
      runs: 1,
      keyword: { ...keyword(10_000), diskBytes: 15_000_000 },
      vector: { ...vector(10_000, 8), diskBytes: 69_000_000 },
      errors: [],
    };
    const withCorpus = {
      ...report([row]),
      corpora: [
        {
          seed: 1,
          targetChunks: 10_000,
          files: 2_700,
          chunks: 10_000,
          bytes: 7_640_000,
          chineseFiles: 400,
          generateMs: 1,
        },
      ],
    };
    // Raw embedded: 7.64 MB of Markdown + 10,000 × 384 × 4 bytes (15.36 MB) = 23 MB.
    expect(folderSizes(row, withCorpus)).toBe("15 MB (×1.96) / 69 MB (×3.00)");
    expect(perfMarkdown(withCorpus)).toContain("| 15 MB (×1.96) / 69 MB (×3.00) |");
    // Without the corpus summary (older reports) the ratio is left out.
    expect(folderSizes(row, report([row]))).toBe("15 MB / 69 MB");
  });
});
