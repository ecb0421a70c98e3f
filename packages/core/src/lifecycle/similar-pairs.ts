/** Two sets, by index (`i < j`), and their Jaccard similarity. */
export interface SimilarPair {
  i: number;
  j: number;
  sim: number;
}

/**
 * Every pair of term sets whose Jaccard similarity is at least `threshold` (pairs sharing no term
 * are never reported), without comparing all pairs: a prefix-filtering similarity join (Chaudhuri
 * et al. 2006; Bayardo et al.'s All-Pairs, 2007). Terms are ordered rarest first; a set of n terms
 * is indexed by its first n − ⌈t·n⌉ + 1, and two sets that similar always share a term there. Sets
 * are visited from the smallest, so a set only meets indexed sets of at least t times its size.
 * Exact: the same pairs as comparing every pair, in far less time when terms are spread (136,116
 * long-term entries: seconds, not minutes).
 */
export function similarPairs(
  sets: ReadonlyArray<ReadonlySet<string>>,
  threshold: number,
): SimilarPair[] {
  const ordered = rarestFirst(sets);
  const visit = ordered
    .map((_, i) => i)
    .filter((i) => (ordered[i] as Int32Array).length > 0)
    .sort((a, b) => (ordered[a] as Int32Array).length - (ordered[b] as Int32Array).length || a - b);
  const postings: number[][] = [];
  /** Per term: where its postings start holding sets large enough for the current size. */
  const from: number[] = [];
  const seenBy = new Int32Array(sets.length).fill(-1);
  const out: SimilarPair[] = [];
  for (const x of visit) {
    const xs = ordered[x] as Int32Array;
    const n = xs.length;
    // The slack keeps ⌈t·n⌉ from rounding up past the true value (0.7 · 10 = 7.000000000000001):
    // a shorter prefix could miss a pair, a longer one only costs a comparison.
    const minOverlap = Math.ceil(threshold * n - 1e-9);
    const prefix = Math.min(n, n - Math.max(minOverlap, 1) + 1);
    const minSize = threshold * n - 1e-9;
    for (let k = 0; k < prefix; k++) {
      const term = xs[k] as number;
      const list = postings[term];
      if (!list) continue;
      let start = from[term] ?? 0;
      while (start < list.length && (ordered[list[start] as number] as Int32Array).length < minSize)
        start++;
      from[term] = start;
      for (let m = start; m < list.length; m++) {
        const y = list[m] as number;
        if (seenBy[y] === x) continue;
        seenBy[y] = x;
        const ys = ordered[y] as Int32Array;
        const shared = overlap(xs, ys);
        const sim = shared / (n + ys.length - shared);
        if (sim >= threshold) out.push(x < y ? { i: x, j: y, sim } : { i: y, j: x, sim });
      }
    }
    for (let k = 0; k < prefix; k++) {
      const term = xs[k] as number;
      const list = postings[term];
      if (list) list.push(x);
      else postings[term] = [x];
    }
  }
  return out;
}

/** Each set as term numbers in one global order, rarest term first (ties by the term's text). */
function rarestFirst(sets: ReadonlyArray<ReadonlySet<string>>): Int32Array[] {
  const count = new Map<string, number>();
  for (const set of sets) for (const term of set) count.set(term, (count.get(term) ?? 0) + 1);
  const rank = new Map<string, number>();
  const terms = [...count].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [r, [term]] of terms.entries()) rank.set(term, r);
  return sets.map((set) => Int32Array.from(set, (term) => rank.get(term) as number).sort());
}

/** Terms two ascending arrays share. */
function overlap(a: Int32Array, b: Int32Array): number {
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared;
}
