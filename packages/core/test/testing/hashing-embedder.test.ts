import { describe, expect, it } from "vitest";
import { createHashingEmbedder } from "../../src/testing/hashing-embedder.js";

const dot = (a: Float32Array, b: Float32Array): number =>
  a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

describe("createHashingEmbedder", () => {
  it("gives the same unit vector of `dims` for the same text, in every instance", async () => {
    const a = createHashingEmbedder({ dims: 48 });
    const b = createHashingEmbedder({ dims: 48 });
    const [x] = await a.embedBatch(["deploy the staging cluster 部署集群"]);
    const y = await b.embedQuery("deploy the staging cluster 部署集群");
    expect(x).toHaveLength(48);
    expect([...(x as Float32Array)]).toEqual([...y]);
    expect(dot(y, y)).toBeCloseTo(1, 5);
  });

  it("puts texts that share terms closer than texts that share none", async () => {
    const e = createHashingEmbedder({ dims: 256 });
    const [q, near, far] = await e.embedBatch([
      "kubernetes cluster upgrade failed",
      "the cluster upgrade failed twice on kubernetes",
      "grandmother's recipe for plum dumplings",
    ]);
    expect(dot(q as Float32Array, near as Float32Array)).toBeGreaterThan(0.6);
    expect(Math.abs(dot(q as Float32Array, far as Float32Array))).toBeLessThan(0.3);
  });

  it("spreads terms over every bucket, with both signs", async () => {
    const dims = 32;
    const e = createHashingEmbedder({ dims });
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const v = await e.embedQuery(`term${i}`);
      const bucket = v.findIndex((x) => x !== 0);
      seen.add((v[bucket] ?? 0) > 0 ? bucket + 1 : -(bucket + 1));
    }
    expect(seen.size).toBe(2 * dims);
  });
});
