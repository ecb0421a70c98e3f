import { readFile } from "node:fs/promises";
import { findDuplicate, normalizeForDedupe, termJaccard } from "../lifecycle/dedupe.js";
import { workspacePath } from "../lifecycle/files.js";
import { hostAnalyzer, type LifecycleHost } from "../lifecycle/host.js";
import { jaccard } from "../search/mmr.js";
import type { Analyzer } from "../text/analyzer.js";
import { isSensitiveFile, privateRanges } from "../workspace/privacy.js";
import { formatRef, type LineRef, overlaps } from "./citations.js";
import type { CuratedFile } from "./curated.js";
import { describeFact, factsOf, impliedDates, missingFacts } from "./facts.js";
import { isConsolidationPath } from "./paths.js";
import type { SourceFile } from "./sources.js";
import type { Duplicate, Operation, Refusal, RefusalCode } from "./types.js";

/** What the checks know about the workspace. */
export interface VerifyContext {
  host: LifecycleHost;
  curated: ReadonlyMap<string, CuratedFile>;
  sources: ReadonlyMap<string, SourceFile>;
  /** Lines the model was shown (model operations may cite only these). */
  shown?: (ref: LineRef) => boolean;
  /** Where an ADD goes when it names no file. */
  defaultFile: string;
  /** Texts the user forgot: never added back. */
  tombstones: readonly string[];
  /** True for daily-log paths (never rewritten by consolidation). */
  isLog: (path: string) => boolean;
}

/** The verdict on a list of operations. */
export interface Verdict {
  accepted: Operation[];
  refused: Refusal[];
  duplicates: Duplicate[];
}

/**
 * Check operations in order; an accepted one claims its target lines, so a later one touching them
 * is refused as a conflict. An operation is refused when:
 *
 * - `invalid`: it is malformed (no text, the wrong number of targets, a target that splits an
 *   entry, an UPDATE that changes nothing);
 * - `lines-missing` / `not-shown`: a cited line does not exist, or the model was not shown it;
 * - `raw-log` / `not-curated`: it would rewrite a daily log or anything but long-term memory;
 * - `private`: it cites a private block or a sensitive file (never promoted);
 * - `unsupported`: its text states a fact (name, number, date, key term, negation; see
 *   `facts.ts`) its cited lines do not hold, shares no word with them, or — a SUPERSEDE — cites no
 *   newer note;
 * - `drops-facts`: an UPDATE or MERGE text leaves out a fact of the entries it replaces;
 * - `forgotten`: it would add back text the user forgot;
 * - `conflict`: an earlier accepted operation already changes its lines.
 *
 * An ADD whose text long-term memory (or an earlier ADD) already holds is not refused but listed
 * as a duplicate and left out.
 */
export async function verifyOperations(
  ops: readonly Operation[],
  ctx: VerifyContext,
): Promise<Verdict> {
  const analyzer = hostAnalyzer(ctx.host);
  const verdict: Verdict = { accepted: [], refused: [], duplicates: [] };
  const claimed: LineRef[] = [];
  const added: Array<{ text: string; ref: LineRef }> = [];
  const reader = new LineReader(ctx);
  let known: CuratedIndex | undefined;
  for (const op of ops) {
    const refuse = (code: RefusalCode, why: string, detail?: string[]) =>
      verdict.refused.push({ operation: op, code, why, ...(detail?.length ? { detail } : {}) });
    const problem = await check(op, ctx, reader, analyzer);
    if (problem) {
      refuse(problem.code, problem.why, problem.detail);
      continue;
    }
    const clash = op.targets.find((t) => claimed.some((c) => overlaps(c, t)));
    if (clash) {
      refuse("conflict", `${formatRef(clash)} is already changed by an earlier operation`);
      continue;
    }
    if (op.op === "ADD" || op.op === "UPDATE" || op.op === "SUPERSEDE") {
      const forgotten = ctx.tombstones.find(
        (t) =>
          normalizeForDedupe(t) === normalizeForDedupe(op.text) ||
          termJaccard(analyzer, t, op.text) >= ctx.host.config.lifecycle.promote.threshold,
      );
      if (forgotten !== undefined) {
        refuse("forgotten", "the user forgot this (engram forget); it is not added back", [
          forgotten,
        ]);
        continue;
      }
    }
    if (op.op === "ADD") {
      known ??= curatedIndex(ctx, analyzer);
      const dup = await duplicateOf(op, ctx, added, analyzer, known);
      if (dup) {
        verdict.duplicates.push({ operation: op, ...dup });
        continue;
      }
      added.push({
        text: op.text,
        ref: op.sources[0] ?? { path: op.file ?? "", startLine: 0, endLine: 0 },
      });
    }
    claimed.push(...op.targets);
    verdict.accepted.push(op);
  }
  return verdict;
}

async function check(
  op: Operation,
  ctx: VerifyContext,
  reader: LineReader,
  analyzer: Analyzer,
): Promise<{ code: RefusalCode; why: string; detail?: string[] } | null> {
  const text = op.text.trim();
  if (!text) return { code: "invalid", why: `${op.op} has no text` };
  const wantTargets = op.op === "UPDATE" || op.op === "SUPERSEDE" ? 1 : op.op === "MERGE" ? 2 : 0;
  if (wantTargets === 1 && op.targets.length !== 1) {
    return {
      code: "invalid",
      why: `${op.op} names ${op.targets.length} entries; it changes exactly one`,
    };
  }
  if (wantTargets === 2 && op.targets.length < 2) {
    return { code: "invalid", why: "MERGE needs at least two entries" };
  }
  if (wantTargets === 0 && op.targets.length > 0) {
    return { code: "invalid", why: `${op.op} changes no existing entry; it names none` };
  }
  if (op.op !== "MERGE" && op.sources.length === 0) {
    return { code: "unsupported", why: `${op.op} cites no source lines` };
  }
  // Targets: whole entries of long-term files.
  for (const t of op.targets) {
    const file = ctx.curated.get(t.path);
    if (!file) {
      return ctx.isLog(t.path) || ctx.sources.has(t.path)
        ? { code: "raw-log", why: `${t.path} is a log; logs are never rewritten` }
        : { code: "not-curated", why: `${t.path} is not a long-term memory file` };
    }
    if (
      t.endLine > file.lines.length ||
      (file.text.endsWith("\n") && t.endLine > file.lines.length - 1)
    ) {
      return {
        code: "lines-missing",
        why: `${formatRef(t)} does not exist (the file has ${file.lines.length - (file.text.endsWith("\n") ? 1 : 0)} lines)`,
      };
    }
    const inside = file.entries.filter((e) => overlaps(e, t));
    if (inside.length === 0) return { code: "invalid", why: `${formatRef(t)} holds no entry` };
    const split = inside.find((e) => e.startLine < t.startLine || e.endLine > t.endLine);
    if (split) {
      return {
        code: "invalid",
        why: `${formatRef(t)} splits the entry at ${formatRef(split)}; cite whole entries`,
      };
    }
    if (inside.some((e) => e.private)) {
      return {
        code: "private",
        why: `${formatRef(t)} is private; private memory is never consolidated`,
      };
    }
    if (ctx.shown && op.origin === "model" && !ctx.shown(t)) {
      return { code: "not-shown", why: `${formatRef(t)} was not shown to the model` };
    }
  }
  // Sources: lines that exist (and that the model saw).
  for (const s of op.sources) {
    const lines = await reader.lines(s.path);
    if (!lines || s.endLine > lines.length) {
      return { code: "lines-missing", why: `${formatRef(s)} does not exist` };
    }
    if (ctx.shown && op.origin === "model" && !ctx.shown(s)) {
      return { code: "not-shown", why: `${formatRef(s)} was not shown to the model` };
    }
    if (await reader.isPrivate(s)) {
      return {
        code: "private",
        why: `${formatRef(s)} is private; private memory is never promoted`,
      };
    }
  }
  if (op.op === "ADD") {
    const file = op.file ?? ctx.defaultFile;
    if (ctx.isLog(file))
      return { code: "raw-log", why: `${file} is a log; facts go to long-term memory` };
    if (!ctx.curated.has(file) && file !== ctx.defaultFile) {
      return { code: "not-curated", why: `${file} is not a long-term memory file` };
    }
    if (isConsolidationPath(file))
      return { code: "not-curated", why: `${file} is written by engram itself` };
  }
  // Facts.
  const targetText = (await Promise.all(op.targets.map((t) => reader.text(t)))).join("\n");
  const sourceText = (await Promise.all(op.sources.map((s) => reader.text(s)))).join("\n");
  const support = `${sourceText}\n${targetText}\n${impliedDates(op.sources.map((s) => s.path))}`;
  const unsupported = missingFacts(factsOf(text), support);
  if (unsupported.length) {
    return {
      code: "unsupported",
      why: `the text states ${unsupported.map(describeFact).join(", ")}, which the cited lines do not hold`,
      detail: unsupported.map(describeFact),
    };
  }
  const own = new Set(analyzer.terms(text));
  if (own.size > 0 && !analyzer.terms(`${sourceText}\n${targetText}`).some((t) => own.has(t))) {
    return { code: "unsupported", why: "the text shares no word with the cited lines" };
  }
  if (op.op === "UPDATE" || op.op === "MERGE") {
    const dropped = missingFacts(factsOf(targetText), text);
    if (dropped.length) {
      return {
        code: "drops-facts",
        why: `the new text drops ${dropped.map(describeFact).join(", ")} of ${op.targets.map(formatRef).join(", ")}`,
        detail: dropped.map(describeFact),
      };
    }
  }
  if (op.op === "UPDATE" && normalizeForDedupe(targetText) === normalizeForDedupe(text)) {
    return {
      code: "invalid",
      why: `UPDATE of ${formatRef(op.targets[0] as LineRef)} changes nothing`,
    };
  }
  if (op.op === "SUPERSEDE" && !op.sources.some((s) => !ctx.curated.has(s.path))) {
    return {
      code: "unsupported",
      why: "SUPERSEDE must cite the newer note that contradicts the entry",
    };
  }
  return null;
}

async function duplicateOf(
  op: Operation,
  ctx: VerifyContext,
  added: ReadonlyArray<{ text: string; ref: LineRef }>,
  analyzer: Analyzer,
  known: CuratedIndex,
): Promise<Omit<Duplicate, "operation"> | null> {
  const threshold = ctx.host.config.lifecycle.promote.threshold;
  const norm = normalizeForDedupe(op.text);
  for (const a of added) {
    if (normalizeForDedupe(a.text) === norm)
      return { existing: a.ref, method: "exact", similarity: 1 };
    const sim = termJaccard(analyzer, a.text, op.text);
    if (sim >= threshold) return { existing: a.ref, method: "lexical", similarity: sim };
  }
  const exact = known.byNorm.get(norm);
  if (exact) return { existing: exact, method: "exact", similarity: 1 };
  const mine = new Set(analyzer.terms(op.text));
  let best: { ref: LineRef; sim: number } | null = null;
  for (const e of known.entries) {
    const sim = jaccard(mine, e.terms);
    if (sim >= threshold && sim > (best?.sim ?? 0)) best = { ref: e.ref, sim };
  }
  if (best) return { existing: best.ref, method: "lexical", similarity: best.sim };
  // Vectors: the index's nearest long-term entries (only with an embedding provider).
  if (!ctx.host.embedder || !ctx.host.search) return null;
  const found = await findDuplicate(ctx.host, op.text, { files: [...ctx.curated.keys()] });
  return found?.method === "vector"
    ? {
        existing: { path: found.path, startLine: found.startLine, endLine: found.endLine },
        method: found.method,
        similarity: found.similarity,
      }
    : null;
}

/** Long-term entries, normalised and analysed once per verification. */
interface CuratedIndex {
  byNorm: Map<string, LineRef>;
  entries: Array<{ ref: LineRef; terms: Set<string> }>;
}

function curatedIndex(ctx: VerifyContext, analyzer: Analyzer): CuratedIndex {
  const byNorm = new Map<string, LineRef>();
  const entries: CuratedIndex["entries"] = [];
  for (const file of ctx.curated.values()) {
    for (const e of file.entries) {
      const ref = { path: e.path, startLine: e.startLine, endLine: e.endLine };
      const norm = normalizeForDedupe(e.text);
      if (norm && !byNorm.has(norm)) byNorm.set(norm, ref);
      entries.push({ ref, terms: new Set(analyzer.terms(e.text)) });
    }
  }
  return { byNorm, entries };
}

/** Lines of workspace files (sources as shown, curated files, others from disk), cached. */
class LineReader {
  readonly #ctx: VerifyContext;
  readonly #cache = new Map<string, { lines: string[]; privateLines: Set<number> } | null>();

  constructor(ctx: VerifyContext) {
    this.#ctx = ctx;
  }

  async #load(path: string): Promise<{ lines: string[]; privateLines: Set<number> } | null> {
    if (this.#cache.has(path)) return this.#cache.get(path) ?? null;
    let value: { lines: string[]; privateLines: Set<number> } | null = null;
    const source = this.#ctx.sources.get(path);
    const curated = this.#ctx.curated.get(path);
    if (source) value = { lines: source.lines, privateLines: source.privateLines };
    else if (curated) {
      const privateLines = new Set<number>();
      for (const e of curated.entries)
        if (e.private) for (let n = e.startLine; n <= e.endLine; n++) privateLines.add(n);
      const lines = [...curated.lines];
      if (curated.text.endsWith("\n")) lines.pop();
      value = { lines, privateLines };
    } else {
      let raw: string | null = null;
      try {
        raw = await readFile(workspacePath(this.#ctx.host.workspace, path), "utf8");
      } catch {
        raw = null;
      }
      if (raw !== null) {
        const lines = raw.split("\n");
        if (raw.endsWith("\n")) lines.pop();
        const privateLines = new Set<number>();
        if (isSensitiveFile(raw)) for (let n = 1; n <= lines.length; n++) privateLines.add(n);
        for (const r of privateRanges(raw))
          for (let n = r.startLine; n <= r.endLine; n++) privateLines.add(n);
        value = { lines, privateLines };
      }
    }
    this.#cache.set(path, value);
    return value;
  }

  async lines(path: string): Promise<string[] | null> {
    return (await this.#load(path))?.lines ?? null;
  }

  async text(ref: LineRef): Promise<string> {
    const lines = await this.lines(ref.path);
    return lines ? lines.slice(ref.startLine - 1, ref.endLine).join("\n") : "";
  }

  async isPrivate(ref: LineRef): Promise<boolean> {
    const f = await this.#load(ref.path);
    if (!f) return false;
    for (let n = ref.startLine; n <= ref.endLine; n++) if (f.privateLines.has(n)) return true;
    return false;
  }
}
