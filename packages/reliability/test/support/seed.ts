import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's seed (`RELIABILITY_SEED`, else chosen and printed by the global setup). */
    seed: number;
    /** Where tests append their figures (JSON lines), summed and printed at the end. */
    figuresFile: string;
  }
}

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same run. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** One element of `items`. */
  pick<T>(items: readonly T[]): T;
  /** `n` distinct elements of `items` (all of them when n ≥ length). */
  sample<T>(items: readonly T[], n: number): T[];
}

/** The generator for one test, from the run's seed and the test's own name. */
export function random(name: string): Random {
  let state = (inject("seed") ^ hash(name)) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)] as (typeof items)[number],
    sample: (items, n) => {
      const copy = [...items];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(0, i);
        [copy[i], copy[j]] = [copy[j] as (typeof copy)[number], copy[i] as (typeof copy)[number]];
      }
      return copy.slice(0, n);
    },
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
