/** A seeded pseudo-random source: the same seed gives the same sequence on every machine. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** A uniformly chosen element. */
  pick<T>(items: readonly T[]): T;
  /**
   * An element chosen by Zipf's law (the r-th element with weight 1/r), as words occur in real
   * text: the first few very often, a long tail rarely.
   */
  pickZipf<T>(items: readonly T[]): T;
}

/** Cumulative Zipf weights per list length, built once: sampling is a binary search. */
const zipfTables = new Map<number, Float64Array>();

function zipfTable(n: number): Float64Array {
  let table = zipfTables.get(n);
  if (!table) {
    table = new Float64Array(n);
    let sum = 0;
    for (let r = 0; r < n; r++) {
      sum += 1 / (r + 1);
      table[r] = sum;
    }
    for (let r = 0; r < n; r++) table[r] = (table[r] as number) / sum;
    zipfTables.set(n, table);
  }
  return table;
}

function zipfIndex(n: number, u: number): number {
  const table = zipfTable(n);
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((table[mid] as number) < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A {@link Random} from a 32-bit seed (mulberry32: small, fast, well distributed). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const at = <T>(items: readonly T[], i: number): T => items[Math.min(items.length - 1, i)] as T;
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => at(items, Math.floor(next() * items.length)),
    pickZipf: (items) => at(items, zipfIndex(items.length, next())),
  };
}
