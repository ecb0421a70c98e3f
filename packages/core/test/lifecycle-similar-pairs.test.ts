import { describe, expect, it } from "vitest";
import { similarPairs } from "../src/lifecycle/similar-pairs.js";

/** Every pair compared: what the join must reproduce. */
function allPairs(sets: ReadonlyArray<ReadonlySet<string>>, threshold: number) {
  const out: string[] = [];
  for (let i = 0; i < sets.length; i++) {
    for (let j = i + 1; j < sets.length; j++) {
      const a = sets[i] as Set<string>;
      const b = sets[j] as Set<string>;
      const shared = [...a].filter((t) => b.has(t)).length;
      if (shared === 0) continue;
      const sim = shared / (a.size + b.size - shared);
      if (sim >= threshold) out.push(`${i}-${j} ${sim.toFixed(6)}`);
    }
  }
  return out.sort();
}

/** Sets drawn from a small vocabulary (English and Chinese terms), many of them near copies. */
function sets(count: number, seed: number): Set<string>[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const vocab = [..."部署回滚方案数据库迁移周四发布"].concat(
    Array.from({ length: 40 }, (_, i) => `term${i}`),
  );
  const pick = () => vocab[Math.floor(random() ** 2 * vocab.length)] as string;
  const out: Set<string>[] = [];
  for (let i = 0; i < count; i++) {
    const base = i > 0 && random() < 0.4 ? out[Math.floor(random() * i)] : undefined;
    const set = new Set(base ? [...base].filter(() => random() < 0.85) : []);
    const size = 1 + Math.floor(random() * 14);
    while (set.size < size) set.add(pick());
    out.push(random() < 0.05 ? new Set() : set);
  }
  return out;
}

describe("similarPairs", () => {
  it.each([1, 0.8, 0.7, 0.5, 0.3, 0])(
    "finds exactly the pairs all-pairs comparison finds (threshold %s)",
    (threshold) => {
      for (const seed of [1, 2, 3]) {
        const input = sets(threshold === 0 ? 120 : 400, seed);
        const found = similarPairs(input, threshold)
          .map((p) => {
            expect(p.i).toBeLessThan(p.j);
            return `${p.i}-${p.j} ${p.sim.toFixed(6)}`;
          })
          .sort();
        const expected = allPairs(input, threshold);
        expect(expected.length).toBeGreaterThan(0);
        expect(found).toEqual(expected);
      }
    },
  );

  it("reports nothing for empty sets or a single set", () => {
    expect(similarPairs([new Set(), new Set()], 0.5)).toEqual([]);
    expect(similarPairs([new Set(["a"])], 0.5)).toEqual([]);
  });
});
