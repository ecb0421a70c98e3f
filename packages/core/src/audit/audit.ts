import type { EngramConfig } from "../config/schema.js";
import { normalizeForDedupe, termJaccard } from "../lifecycle/dedupe.js";
import { readRecall } from "../lifecycle/recall.js";
import { similarPairs } from "../lifecycle/similar-pairs.js";
import { parseSealed } from "../sealing/format.js";
import type { SealKey } from "../sealing/keys.js";
import { sealedSpansKeyCannotOpen } from "../sealing/spans.js";
import type { Analyzer } from "../text/analyzer.js";
import type { Tier } from "../tier.js";
import { isSensitiveFile, type LineRange, privateSpans } from "../workspace/privacy.js";
import { readTexts } from "../workspace/read-texts.js";
import { scanWorkspace } from "../workspace/scan.js";
import { BUILT_IN_RULES, type Detection, detect, userRules } from "./detectors.js";
import { keyValueOf, type LongTermEntry, longTermEntries } from "./entries.js";
import { secretlintDetections } from "./secretlint.js";

/** What a finding is about. */
export type AuditFindingKind =
  | "stale"
  | "duplicate"
  | "contradiction"
  | "secret"
  | "pii"
  | "sealed-key-missing";

/** What to do about a finding (the curation plan can take these up). */
export type AuditAction =
  | "forget"
  | "merge"
  | "supersede"
  | "mark-sensitive"
  | "seal"
  | "provide-key";

/** One finding of {@link auditWorkspace}. */
export interface AuditFinding {
  kind: AuditFindingKind;
  /** The detector or check that found it (e.g. `cn-resident-id`, `secretlint:github`). */
  rule: string;
  path: string;
  startLine: number;
  endLine: number;
  /** `path:start-end`, as search results cite lines. */
  cite: string;
  /** What was found, in words; a secret or personal value is masked, never quoted whole. */
  message: string;
  action: AuditAction;
  /** The other entry, for duplicates and contradictions (`path:start-end`). */
  related?: string;
}

/** The audit's report. */
export interface AuditReport {
  /** When the audit ran (ISO 8601). */
  at: string;
  files: number;
  findings: AuditFinding[];
  /** Findings per kind. */
  counts: Record<AuditFindingKind, number>;
}

/** What {@link auditWorkspace} reads (a `Memory` has all of it, `sealing.key()` aside). */
export interface AuditHost {
  workspace: string;
  config: EngramConfig;
  analyzer: Analyzer;
  tierOf: (path: string) => Tier;
  /** The sealing key, when one is configured (null: none). */
  key: SealKey | null;
}

/** Options of {@link auditWorkspace}. */
export interface AuditOptions {
  /** "Now" for staleness (default: the current time). */
  now?: Date;
  /** Leave secretlint out (the built-in rules still run). */
  secretlint?: boolean;
}

/**
 * Audit the workspace's memory, as a library function the maintenance schedule can call:
 *
 * - **Sensitive content not marked**: secrets (secretlint's recommended preset plus engram's
 *   generic rules: API keys, tokens, passwords, private keys) and personal data (e-mail, phone
 *   numbers incl. Chinese mobiles, card numbers by Luhn, Chinese resident IDs by checksum, US SSNs,
 *   English and Chinese postal addresses), plus the user's rules (`privacy.audit.rules`). Text in
 *   private spans, in `sensitive: true` files and in sealed files is already marked and not
 *   reported.
 * - **Long-term entries**: stale (older than `privacy.audit.staleDays` and never recalled, by the
 *   recall log), duplicated (same text, or term overlap ≥ `lifecycle.promote.threshold`), and
 *   contradicted (`key: value` entries with the same key and different values).
 * - **Sealed files whose key is missing** (no key configured, or not the key they were sealed to).
 *
 * Each finding cites `path:start-end` and suggests an action. Nothing is written.
 */
export async function auditWorkspace(
  host: AuditHost,
  options: AuditOptions = {},
): Promise<AuditReport> {
  const now = options.now ?? new Date();
  const { files } = await scanWorkspace({
    workspace: host.workspace,
    extraPaths: host.config.extraPaths,
  });
  const rules = [...BUILT_IN_RULES, ...userRules(host.config.privacy.audit.rules)];
  const findings: AuditFinding[] = [];
  const longTerm: LongTermEntry[] = [];
  const mtimes = new Map<string, Date>();
  const maxBytes = host.config.sync.maxFileBytes;
  for await (const [file, { text, mtime }] of readTexts(files, { maxBytes })) {
    mtimes.set(file.path, mtime);
    const sealed = parseSealed(text);
    if (sealed) {
      const opens = host.key && sealed.recipients.some((r) => host.key?.recipients.includes(r));
      if (!opens) findings.push(sealedFinding(file.path, text, sealed.recipients, host.key));
      continue;
    }
    for (const span of await sealedSpansKeyCannotOpen(text, host.key, file.path)) {
      findings.push(sealedSpanFinding(file.path, span, host.key));
    }
    if (!isSensitiveFile(text)) {
      findings.push(
        ...(await sensitiveFindings(file.path, text, rules, options, host.key !== null)),
      );
    }
    if (host.tierOf(file.path) === "long") longTerm.push(...longTermEntries(file.path, text));
  }
  findings.push(...(await staleFindings(host, longTerm, mtimes, now)));
  findings.push(...entryFindings(host, longTerm));
  const counts = {
    stale: 0,
    duplicate: 0,
    contradiction: 0,
    secret: 0,
    pii: 0,
    "sealed-key-missing": 0,
  } satisfies Record<AuditFindingKind, number>;
  for (const f of findings) counts[f.kind]++;
  findings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.startLine - b.startLine));
  return { at: now.toISOString(), files: files.length, findings, counts };
}

const cite = (path: string, start: number, end: number) =>
  `${path}:${start === end ? start : `${start}-${end}`}`;

function finding(
  kind: AuditFindingKind,
  rule: string,
  path: string,
  startLine: number,
  endLine: number,
  message: string,
  action: AuditAction,
  related?: string,
): AuditFinding {
  return {
    kind,
    rule,
    path,
    startLine,
    endLine,
    cite: cite(path, startLine, endLine),
    message,
    action,
    ...(related ? { related } : {}),
  };
}

/** 1-based line of `offset`. */
function lineOf(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((lineStarts[mid] as number) <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `abcdef…` → `ab…` (length kept as a hint, never the value). */
function mask(value: string): string {
  const v = value.trim();
  return `${v.slice(0, 2)}${"•".repeat(Math.min(8, Math.max(3, v.length - 2)))} (${v.length} chars)`;
}

async function sensitiveFindings(
  path: string,
  text: string,
  rules: Parameters<typeof detect>[1],
  options: AuditOptions,
  keyConfigured: boolean,
): Promise<AuditFinding[]> {
  const spans = privateSpans(text);
  const inSpan = (d: Detection) => spans.some((s) => s.start < d.end && d.start < s.end);
  const own = detect(text, rules);
  const linted =
    options.secretlint === false ? [] : await secretlintDetections(text).catch(() => []);
  const all = [...linted];
  for (const d of own) if (!all.some((a) => a.start < d.end && d.start < a.end)) all.push(d);
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const out: AuditFinding[] = [];
  for (const d of all) {
    if (inSpan(d)) continue;
    const start = lineOf(starts, d.start);
    const end = lineOf(starts, Math.max(d.start, d.end - 1));
    const value = mask(text.slice(d.start, d.end));
    if (d.kind === "secret") {
      out.push(
        finding(
          "secret",
          d.rule,
          path,
          start,
          end,
          `looks like a credential (${d.rule}): ${value}`,
          "forget",
        ),
      );
    } else {
      out.push(
        finding(
          "pii",
          d.rule,
          path,
          start,
          end,
          `personal data not marked (${d.rule}): ${value}; mark it private or the file sensitive${keyConfigured ? ", or seal the file" : ""}`,
          keyConfigured ? "seal" : "mark-sensitive",
        ),
      );
    }
  }
  return out;
}

function sealedFinding(
  path: string,
  text: string,
  recipients: readonly string[],
  key: SealKey | null,
): AuditFinding {
  const lines = text.split("\n").length;
  const to = recipients.join(", ") || "an unknown key";
  return finding(
    "sealed-key-missing",
    "sealing",
    path,
    1,
    lines,
    key
      ? `sealed to ${to}, which the configured key (${key.source}) does not hold`
      : `sealed to ${to}, and no key is configured: it cannot be searched or read`,
    "provide-key",
  );
}

function sealedSpanFinding(path: string, span: LineRange, key: SealKey | null): AuditFinding {
  return finding(
    "sealed-key-missing",
    "sealing",
    path,
    span.startLine,
    span.endLine,
    key
      ? `a private span sealed with another key than the configured one (${key.source})`
      : "a private span sealed in place, and no key is configured: it cannot be read",
    "provide-key",
  );
}

async function staleFindings(
  host: AuditHost,
  entries: readonly LongTermEntry[],
  mtimes: ReadonlyMap<string, Date>,
  now: Date,
): Promise<AuditFinding[]> {
  const days = host.config.privacy.audit.staleDays;
  const recall = Object.values((await readRecall(host.workspace))?.entries ?? {});
  const out: AuditFinding[] = [];
  for (const e of entries) {
    const when = e.dated ?? mtimes.get(e.path);
    if (!when) continue;
    const age = (now.getTime() - when.getTime()) / 86_400_000;
    if (age < days) continue;
    const recalled = recall.some(
      (r) => r.path === e.path && r.startLine <= e.endLine && e.startLine <= r.endLine,
    );
    if (recalled) continue;
    out.push(
      finding(
        "stale",
        "stale",
        e.path,
        e.startLine,
        e.endLine,
        `${Math.floor(age)} days old and never recalled by a search or a read; forget it if it no longer holds`,
        "forget",
      ),
    );
  }
  return out;
}

/** Entries compared pairwise at most (a long-term memory far larger than this is audited in part). */
const MAX_COMPARED = 3000;

const byNumber = (x: number, y: number) => x - y;

/**
 * Each long-term entry against the earlier ones, in order: the first it duplicates or contradicts
 * is reported. Only earlier entries similar enough by terms (found by a similarity join), with the
 * same normalised text or with the same key can be either, so only those are compared.
 */
function entryFindings(host: AuditHost, entries: readonly LongTermEntry[]): AuditFinding[] {
  const threshold = host.config.lifecycle.promote.threshold;
  const list: ComparedEntry[] = entries.slice(0, MAX_COMPARED).map((e) => ({
    e,
    norm: normalizeForDedupe(e.text),
    kv: keyValueOf(e.text),
    terms: new Set(host.analyzer.terms(e.text)),
  }));
  /** Per entry: the earlier entries at least `threshold` similar by terms, and how similar. */
  const similar = list.map(() => new Map<number, number>());
  for (const { i, j, sim } of similarPairs(
    list.map((x) => x.terms),
    threshold,
  )) {
    similar[j]?.set(i, sim);
  }
  // Earlier entries by normalised text and by key: an exact duplicate or a contradiction may
  // share no term (a text of punctuation, a value in other words).
  const byNorm = new Map<string, number[]>();
  const byKey = new Map<string, number[]>();
  const out: AuditFinding[] = [];
  for (const [j, b] of list.entries()) {
    const close = similar[j] as Map<number, number>;
    if (b.norm.length >= 6) {
      // With a threshold of 0 every pair is similar enough, shared terms or not.
      const sameKey = (b.kv && byKey.get(b.kv.key)) || [];
      const candidates =
        threshold <= 0
          ? list.keys()
          : new Set([...close.keys(), ...(byNorm.get(b.norm) ?? []), ...sameKey].sort(byNumber));
      for (const i of candidates) {
        if (i >= j) break;
        const found = compareEntries(
          host,
          threshold,
          list[i] as ComparedEntry,
          b,
          close.get(i) ?? 0,
        );
        if (found) {
          out.push(found);
          break;
        }
      }
    }
    for (const [map, key] of [
      [byNorm, b.norm],
      [byKey, b.kv?.key],
    ] as const) {
      if (key === undefined) continue;
      const earlier = map.get(key);
      if (earlier) earlier.push(j);
      else map.set(key, [j]);
    }
  }
  return out;
}

/** A long-term entry as the duplicate and contradiction checks compare it. */
interface ComparedEntry {
  e: LongTermEntry;
  norm: string;
  kv: ReturnType<typeof keyValueOf>;
  /** Its analyser terms. */
  terms: Set<string>;
}

/**
 * What `b` is to the earlier entry `a` (`sim`: their terms' Jaccard similarity when at least
 * `threshold`, else anything below it): a contradiction, a duplicate, or null.
 */
function compareEntries(
  host: AuditHost,
  threshold: number,
  a: ComparedEntry,
  b: ComparedEntry,
  sim: number,
): AuditFinding | null {
  const there = cite(a.e.path, a.e.startLine, a.e.endLine);
  if (a.kv && b.kv && a.kv.key === b.kv.key) {
    const same = normalizeForDedupe(a.kv.value) === normalizeForDedupe(b.kv.value);
    if (!same && termJaccard(host.analyzer, a.kv.value, b.kv.value) < threshold) {
      return finding(
        "contradiction",
        "key-value",
        b.e.path,
        b.e.startLine,
        b.e.endLine,
        `"${b.kv.key}" has another value at ${there}; keep the one that holds and supersede the other`,
        "supersede",
        there,
      );
    }
  }
  const exact = a.norm === b.norm;
  if (!exact && sim < threshold) return null;
  return finding(
    "duplicate",
    exact ? "exact" : "lexical",
    b.e.path,
    b.e.startLine,
    b.e.endLine,
    `${exact ? "the same as" : "nearly the same as"} ${there}; merge them`,
    "merge",
    there,
  );
}
