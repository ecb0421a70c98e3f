import type { Filterable } from "@engram/core/driver";
import { KERNEL_SLACK, quantize } from "@engram/core/driver";
import { seededRandom } from "@engram/core/testing";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { describe, expect, it } from "vitest";
import { cosineDistance } from "../src/cosine-distance.js";
import { type SimdScan, simdScan } from "../src/simd-scan.js";
import { type MatrixHit, VectorMatrix } from "../src/vector-matrix.js";

const DIMS = 64;

/** A vector of DIMS components uniform in [-1, 1). */
function randomVector(next: () => number): Float32Array {
  return Float32Array.from({ length: DIMS }, () => next() * 2 - 1);
}

function usearch(): SimdScan {
  const scan = simdScan();
  if (!scan) throw new Error("USearch's binary did not load on this platform");
  return scan;
}

/** Rows 0…n-1 in a matrix, their float32 vectors by rowid, and a tier per row. */
function build(vectors: Float32Array[]) {
  const matrix = new VectorMatrix(DIMS, usearch(), 16);
  const tiers = vectors.map((_, i) => (i % 3 === 0 ? "long" : "short"));
  for (const [rowid, vector] of vectors.entries()) {
    matrix.set(rowid, vector, {
      path: `notes/${rowid % 10}.md`,
      tier: tiers[rowid] as string,
      source: "memory",
    });
  }
  let lookups = 0;
  const exact = (rowid: number) => {
    lookups++;
    return vectors[rowid];
  };
  return { matrix, tiers, exact, lookups: () => lookups };
}

/** The `k` nearest rows (and rows tied with the k-th) by exact distance, computed over every row. */
function bruteForce(
  vectors: Float32Array[],
  query: Float32Array,
  k: number,
  accept: (rowid: number) => boolean,
): MatrixHit[] {
  const all = vectors
    .map((vector, rowid) => ({ rowid, distance: cosineDistance(query, vector) }))
    .filter((hit) => accept(hit.rowid) && !Number.isNaN(hit.distance))
    .sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
  const cut = all[Math.min(k, all.length) - 1]?.distance ?? Number.NEGATIVE_INFINITY;
  return all.filter((hit) => hit.distance <= cut);
}

/** The hits as nearest() promises them: up to and including the k-th distance, in rowid order on ties. */
function topOf(hits: MatrixHit[], k: number): MatrixHit[] {
  const sorted = [...hits].sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
  const cut = sorted[Math.min(k, sorted.length) - 1]?.distance ?? Number.NEGATIVE_INFINITY;
  return sorted.filter((hit) => hit.distance <= cut);
}

describe("int8 vector matrix with exact rescoring", () => {
  it("returns the exact k nearest even where int8 images cannot tell rows apart", () => {
    const next = seededRandom(11);
    const base = randomVector(next);
    // 400 rows within 1e-4 of one vector (identical int8 images, distinct exact distances),
    // duplicates (exact ties), a zero vector, and 2,000 unrelated rows.
    const near = Array.from({ length: 400 }, () => base.map((x) => x + (next() * 2 - 1) * 1e-4));
    const vectors = [
      ...near,
      near[0] as Float32Array,
      near[1] as Float32Array,
      new Float32Array(DIMS),
      ...Array.from({ length: 2000 }, () => randomVector(next)),
    ];
    const { matrix, tiers, exact } = build(vectors);
    for (let q = 0; q < 6; q++) {
      const query = base.map((x) => x + (next() * 2 - 1) * 1e-4);
      for (const k of [1, 3, 24, 500]) {
        for (const [accept, predicate] of [
          [() => true, undefined],
          [
            (rowid: number) => tiers[rowid] === "long",
            (chunk: Filterable) => chunk.tier === "long",
          ],
          [(rowid: number) => rowid % 10 === 7, (chunk: Filterable) => chunk.path === "notes/7.md"],
        ] as const) {
          const found = matrix.nearest(query, k, predicate, exact);
          expect(topOf(found, k)).toEqual(bruteForce(vectors, query, k, accept));
          expect(found.map((hit) => hit.distance)).toEqual(
            [...found.map((hit) => hit.distance)].sort((a, b) => a - b),
          );
        }
      }
    }
  });

  it("rescores a small share of the rows to prove an ordinary top k", () => {
    const next = seededRandom(5);
    const vectors = Array.from({ length: 5000 }, () => randomVector(next));
    const { matrix, exact, lookups } = build(vectors);
    for (let q = 0; q < 10; q++) {
      const query = randomVector(next);
      const found = matrix.nearest(query, 10, undefined, exact);
      expect(topOf(found, 10)).toEqual(bruteForce(vectors, query, 10, () => true));
    }
    expect(lookups()).toBeGreaterThan(0);
    expect(lookups()).toBeLessThan(10 * 5000 * 0.2);
  });

  it("gives up on a filter that too few scanned rows pass, when asked to", () => {
    const next = seededRandom(7);
    const vectors = Array.from({ length: 3000 }, () => randomVector(next));
    const { matrix, exact } = build(vectors);
    const query = randomVector(next);
    const oneFileInTen = (chunk: Filterable) => chunk.path === "notes/7.md";
    expect(matrix.nearest(query, 50, oneFileInTen, exact, 1 / 2)).toBeUndefined();
    const found = matrix.nearest(query, 50, oneFileInTen, exact, 1 / 16);
    expect(topOf(found ?? [], 50)).toEqual(
      bruteForce(vectors, query, 50, (rowid) => rowid % 10 === 7),
    );
  });

  it("follows removals and replacements, and finds nothing for a zero query", () => {
    const next = seededRandom(3);
    const vectors = Array.from({ length: 3000 }, () => randomVector(next));
    const { matrix, exact } = build(vectors);
    const query = randomVector(next);
    const first = matrix.nearest(query, 5, undefined, exact);
    for (const hit of first.slice(0, 3)) matrix.remove(hit.rowid);
    for (let rowid = 0; rowid < 2000; rowid++) matrix.remove(rowid); // compacts the rows
    const live = (rowid: number) =>
      rowid >= 2000 && !first.slice(0, 3).some((hit) => hit.rowid === rowid);
    expect(topOf(matrix.nearest(query, 5, undefined, exact), 5)).toEqual(
      bruteForce(vectors, query, 5, live),
    );
    vectors[2500] = query.slice();
    matrix.set(2500, query, { path: "new.md", tier: "long", source: "memory" });
    expect(matrix.nearest(query, 1, undefined, exact)[0]?.rowid).toBe(2500);
    expect(matrix.nearest(new Float32Array(DIMS), 5, undefined, exact)).toEqual([]);
    expect(matrix.size).toBe(1000 - first.slice(0, 3).filter((hit) => hit.rowid >= 2000).length);
  });
});

describe("int8 quantisation", () => {
  it("bounds the angle between a vector and its int8 image", () => {
    const next = seededRandom(17);
    const shapes = [
      () => next() * 2 - 1,
      () => (next() < 0.05 ? (next() * 2 - 1) * 50 : (next() * 2 - 1) * 1e-3), // a few spikes
      () => (next() - 0.5) ** 3,
    ];
    for (const shape of shapes) {
      for (let trial = 0; trial < 200; trial++) {
        const vector = Float64Array.from({ length: 384 }, shape);
        const image = new Int8Array(384);
        const bound = quantize(vector, image);
        let dot = 0;
        let xx = 0;
        let qq = 0;
        for (let i = 0; i < 384; i++) {
          dot += (vector[i] as number) * (image[i] as number);
          xx += (vector[i] as number) ** 2;
          qq += (image[i] as number) ** 2;
        }
        const angle = Math.acos(Math.min(1, dot / Math.sqrt(xx * qq)));
        expect(angle).toBeLessThanOrEqual(bound + 1e-12);
        expect(bound).toBeLessThan(0.2);
      }
    }
    expect(quantize(new Float32Array(8), new Int8Array(8))).toBeNaN();
    expect(quantize(Float32Array.from([1, Number.NaN]), new Int8Array(2))).toBeNaN();
  });

  it("the int8 SIMD kernel's cosine is within the allowed slack of exact arithmetic", () => {
    const next = seededRandom(23);
    const dims = 384;
    const rows = 4000;
    const query = Int8Array.from({ length: dims }, () => Math.round((next() * 2 - 1) * 127));
    const matrix = new Int8Array(rows * dims);
    for (let r = 0; r < rows; r++) {
      const pull = r / rows; // from unrelated rows to rows almost equal to the query
      for (let i = 0; i < dims; i++) {
        const own = (next() * 2 - 1) * 127;
        matrix[r * dims + i] = Math.round(pull * (query[i] as number) + (1 - pull) * own);
      }
    }
    const { positions, distances } = usearch()(matrix, query, dims, rows);
    let worst = 0;
    for (let i = 0; i < positions.length; i++) {
      const r = Number(positions[i]);
      let dot = 0;
      let xx = 0;
      let qq = 0;
      for (let j = 0; j < dims; j++) {
        const x = matrix[r * dims + j] as number;
        const y = query[j] as number;
        dot += x * y;
        xx += x * x;
        qq += y * y;
      }
      worst = Math.max(worst, Math.abs(1 - dot / Math.sqrt(xx * qq) - (distances[i] as number)));
    }
    expect(worst).toBeLessThan(KERNEL_SLACK / 10);
  });

  it("scores a pair exactly as sqlite-vec's vec_distance_cosine does", () => {
    const db = new Database(":memory:");
    sqliteVec.load(db);
    const distance = db.prepare("SELECT vec_distance_cosine(?, ?)").pluck();
    const next = seededRandom(29);
    for (let trial = 0; trial < 300; trial++) {
      const dims = trial % 2 ? 384 : 7;
      const a = Float32Array.from({ length: dims }, () => (next() * 2 - 1) * 10 ** (trial % 5));
      const b = Float32Array.from({ length: dims }, () => next() * 2 - 1);
      const blob = (v: Float32Array) => Buffer.from(v.buffer);
      expect(cosineDistance(a, b)).toBe(distance.get(blob(a), blob(b)));
    }
    db.close();
  });
});
