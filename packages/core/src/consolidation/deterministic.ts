import { readFile } from "node:fs/promises";
import { IMPORTANT_RE, promotionCandidates } from "../lifecycle/candidates.js";
import { normalizeForDedupe } from "../lifecycle/dedupe.js";
import { workspacePath } from "../lifecycle/files.js";
import { hostAnalyzer, type LifecycleHost } from "../lifecycle/host.js";
import { readQueryTexts } from "../lifecycle/recall.js";
import { similarPairs } from "../lifecycle/similar-pairs.js";
import type { Analyzer } from "../text/analyzer.js";
import { formatRef, type LineRef } from "./citations.js";
import { type CuratedFile, type Entry, entriesOf } from "./curated.js";
import { factsOf, missingFacts } from "./facts.js";
import type { SourceFile } from "./sources.js";
import type { Operation } from "./types.js";

/** Most entries compared by vectors in one pass (each is embedded). */
const MAX_VECTOR_ENTRIES = 2_000;
/** Most recall candidates promoted in one pass. */
const MAX_PROMOTIONS = 20;

/** Near-duplicates found but not merged, because each holds a fact the other lacks. */
export interface KeptApart {
  a: LineRef;
  b: LineRef;
  facts: string[];
}

/**
 * MERGE operations for entries of long-term memory that say the same thing: the same text once
 * normalised (`exact`), analyzer-term Jaccard ≥ `lifecycle.promote.threshold` (`lexical`) or, when
 * the host has an embedding provider, cosine ≥ `vectorThreshold` (`vector`). Of two duplicates the
 * one holding every fact of the other is kept (the earlier one when both do), and the other is
 * archived; near-duplicates whose facts differ either way (two ports, two dates) are left apart
 * and reported. Private entries are never compared.
 */
export async function duplicateMerges(
  host: LifecycleHost,
  curated: readonly CuratedFile[],
): Promise<{ ops: Operation[]; keptApart: KeptApart[] }> {
  const analyzer = hostAnalyzer(host);
  const { threshold, vectorThreshold } = host.config.lifecycle.promote;
  const entries: Entry[] = [];
  const norms: string[] = [];
  for (const e of curated.flatMap((f) => f.entries)) {
    const norm = e.private ? "" : normalizeForDedupe(e.text);
    if (!norm) continue;
    entries.push(e);
    norms.push(norm);
  }
  const terms = entries.map((e) => new Set(analyzer.terms(e.text)));
  // Facts only of entries in a pair (most are in none): ~4 s for 136k entries otherwise.
  const factsByEntry = new Map<number, ReturnType<typeof factsOf>>();
  const facts = (i: number) => {
    const found = factsByEntry.get(i) ?? factsOf((entries[i] as Entry).text);
    factsByEntry.set(i, found);
    return found;
  };
  const pairs: Array<{
    i: number;
    j: number;
    method: "exact" | "lexical" | "vector";
    sim: number;
  }> = [];
  const byNorm = new Map<string, number[]>();
  norms.forEach((n, i) => {
    const list = byNorm.get(n) ?? [];
    list.push(i);
    byNorm.set(n, list);
  });
  for (const same of byNorm.values()) {
    for (const [k, i] of same.entries()) {
      for (const j of same.slice(k + 1)) pairs.push({ i, j, method: "exact", sim: 1 });
    }
  }
  for (const p of similarPairs(terms, threshold)) {
    if (norms[p.i] !== norms[p.j]) pairs.push({ ...p, method: "lexical" });
  }
  if (host.embedder && entries.length > 1 && entries.length <= MAX_VECTOR_ENTRIES) {
    const known = new Set(pairs.map((p) => `${p.i}:${p.j}`));
    for (const p of await vectorPairs(host, entries)) {
      if (p.sim >= vectorThreshold && !known.has(`${p.i}:${p.j}`))
        pairs.push({ ...p, method: "vector" });
    }
  }
  pairs.sort(
    (a, b) =>
      (a.method === "exact" ? 0 : 1) - (b.method === "exact" ? 0 : 1) ||
      b.sim - a.sim ||
      a.i - b.i ||
      a.j - b.j,
  );
  const dropped = new Set<number>();
  const kept = new Map<number, { drops: number[]; why: string[] }>();
  const keptApart: KeptApart[] = [];
  for (const p of pairs) {
    const a = entries[p.i] as Entry;
    const b = entries[p.j] as Entry;
    const bInA = missingFacts(facts(p.j), a.text).length === 0;
    const aInB = missingFacts(facts(p.i), b.text).length === 0;
    let keep: number;
    let drop: number;
    if (bInA) [keep, drop] = [p.i, p.j];
    else if (aInB) [keep, drop] = [p.j, p.i];
    else {
      const diff = [...missingFacts(facts(p.j), a.text), ...missingFacts(facts(p.i), b.text)];
      keptApart.push({ a: ref(a), b: ref(b), facts: diff.map((f) => `${f.kind}:${f.value}`) });
      continue;
    }
    if (dropped.has(keep) || dropped.has(drop) || kept.has(drop)) continue;
    dropped.add(drop);
    const entry = kept.get(keep) ?? { drops: [], why: [] };
    entry.drops.push(drop);
    entry.why.push(
      `${formatRef(ref(entries[drop] as Entry))} (${p.method}${p.method === "exact" ? "" : ` ${p.sim.toFixed(2)}`})`,
    );
    kept.set(keep, entry);
  }
  const ops: Operation[] = [];
  for (const [keep, { drops, why }] of [...kept].sort((x, y) => x[0] - y[0])) {
    const k = entries[keep] as Entry;
    const targets = [ref(k), ...drops.map((d) => ref(entries[d] as Entry))];
    ops.push({
      op: "MERGE",
      targets,
      text: k.text,
      sources: targets,
      reason: `duplicates of ${formatRef(ref(k))}: ${why.join(", ")}`,
      origin: "duplicates",
    });
  }
  return { ops, keptApart };
}

function ref(e: LineRef): LineRef {
  return { path: e.path, startLine: e.startLine, endLine: e.endLine };
}

async function vectorPairs(
  host: LifecycleHost,
  entries: readonly Entry[],
): Promise<Array<{ i: number; j: number; sim: number }>> {
  const embedder = host.embedder;
  if (!embedder) return [];
  const vectors: Float32Array[] = [];
  try {
    for (let at = 0; at < entries.length; at += 64) {
      vectors.push(...(await embedder.embedBatch(entries.slice(at, at + 64).map((e) => e.text))));
    }
  } catch {
    return []; // provider down: the lexical answer stands
  }
  const norms = vectors.map((v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1);
  const out: Array<{ i: number; j: number; sim: number }> = [];
  for (let i = 0; i < vectors.length; i++) {
    for (let j = i + 1; j < vectors.length; j++) {
      const a = vectors[i] as Float32Array;
      const b = vectors[j] as Float32Array;
      let dot = 0;
      for (let d = 0; d < a.length; d++) dot += (a[d] as number) * (b[d] as number);
      out.push({ i, j, sim: dot / ((norms[i] as number) * (norms[j] as number)) });
    }
  }
  return out;
}

/** Text of an entry as a fact: list marker and importance marks removed. */
export function factText(entry: string): string {
  return entry
    .trim()
    .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "")
    .replace(/(^|\s)(#important|!important|\[important\])(?=\s|$)/giu, "$1")
    .replace(/⭐/gu, "")
    .replace(/\s+$/u, "")
    .trim();
}

/**
 * ADD operations without a model: short-term text recalled often enough to be a promotion
 * candidate (`lifecycle.candidates`), and new lines marked important (`#important`, `!important`,
 * `[important]`, ⭐). Each entry of such a stretch is one fact, cited by its lines.
 */
export async function promotionAdds(
  host: LifecycleHost,
  sources: readonly SourceFile[],
  file: string,
  now: Date,
): Promise<Operation[]> {
  const ops: Operation[] = [];
  const { candidates } = await promotionCandidates(host, { now, limit: MAX_PROMOTIONS });
  const files = new Map<string, string | null>();
  const queryTexts = await readQueryTexts(host.workspace);
  const analyzer = hostAnalyzer(host);
  for (const c of candidates) {
    if (!files.has(c.path)) {
      files.set(
        c.path,
        await readFile(workspacePath(host.workspace, c.path), "utf8").catch(() => null),
      );
    }
    const inside = entriesOf(files.get(c.path) ?? "").filter(
      (e) => e.endLine >= c.startLine && e.startLine <= c.endLine && factText(e.text),
    );
    const min = host.config.lifecycle.candidates.minRecalls;
    for (const e of answeringEntries(inside, c.queries, queryTexts, analyzer, min)) {
      if (ops.length >= host.config.consolidation.maxPromotions) break;
      ops.push({
        op: "ADD",
        targets: [],
        text: factText(e.text),
        sources: [{ path: c.path, startLine: e.startLine, endLine: e.endLine }],
        file,
        reason: `recalled ${c.frequency} times (score ${c.score})`,
        origin: "recall",
      });
    }
  }
  for (const s of sources) {
    if (s.kind === "session") continue;
    const text = s.lines.join("\n");
    for (const e of entriesOf(text)) {
      if (e.endLine < s.from || !IMPORTANT_RE.test(e.text)) continue;
      const fact = factText(e.text);
      if (!fact) continue;
      ops.push({
        op: "ADD",
        targets: [],
        text: fact,
        sources: [{ path: s.path, startLine: e.startLine, endLine: e.endLine }],
        file,
        reason: "marked important",
        origin: "important",
      });
    }
  }
  return ops;
}

/** Entries of a stretch a short stretch (≤ 3 entries) promotes whole. */
const WHOLE_STRETCH = 3;

/**
 * The entries of a recalled stretch that answered its queries: each query whose text is kept
 * votes for the entry sharing most of its terms (a chunk of a chat log holds many lines; the one
 * the search was for is the fact), and an entry needs `minRecalls` votes. Without query texts, a
 * short stretch is promoted whole and a long one not at all.
 */
function answeringEntries(
  entries: ReadonlyArray<{ startLine: number; endLine: number; text: string }>,
  hashes: readonly string[],
  texts: ReadonlyMap<string, string>,
  analyzer: Analyzer,
  minRecalls: number,
): Array<{ startLine: number; endLine: number; text: string }> {
  const queries = hashes.map((h) => texts.get(h)).filter((q): q is string => q !== undefined);
  if (queries.length === 0) return entries.length <= WHOLE_STRETCH ? [...entries] : [];
  const terms = entries.map((e) => new Set(analyzer.terms(e.text)));
  const votes = new Map<number, number>();
  for (const q of queries) {
    const wanted = [...new Set(analyzer.queryTerms?.(q) ?? analyzer.terms(q))];
    let best = -1;
    let bestShared = 0;
    terms.forEach((set, i) => {
      const shared = wanted.filter((t) => set.has(t)).length;
      if (shared > bestShared) {
        best = i;
        bestShared = shared;
      }
    });
    if (best >= 0) votes.set(best, (votes.get(best) ?? 0) + 1);
  }
  // The entry itself must pass the candidates' threshold: it answered `minRecalls` queries.
  return entries.filter((_, i) => (votes.get(i) ?? 0) >= minRecalls);
}
