import { readFile } from "node:fs/promises";
import type { Embedder } from "../embedding/embedder.js";
import { jaccard } from "../search/mmr.js";
import type { Analyzer } from "../text/analyzer.js";
import { scanWorkspace } from "../workspace/scan.js";
import { workspacePath } from "./files.js";
import { hostAnalyzer, hostTierOf, type LifecycleHost } from "./host.js";

/** Where a text already lives in long-term memory. */
export interface DuplicateMatch {
  path: string;
  startLine: number;
  endLine: number;
  /** `exact`: same text once normalised; `lexical`: term overlap; `vector`: cosine similarity. */
  method: "exact" | "lexical" | "vector";
  /** 1 for exact; Jaccard or cosine otherwise. */
  similarity: number;
  /** The text found there. */
  text: string;
}

/** Thresholds of {@link findDuplicate} (defaults from `lifecycle.promote`). */
export interface DedupeOptions {
  /** Jaccard similarity of analyzer terms at or above which a text is a near duplicate (0.8). */
  threshold?: number;
  /** Cosine similarity at or above which it is a near duplicate by vectors (0.92). */
  vectorThreshold?: number;
  /** Files to compare against (default: every long-tier file). */
  files?: readonly string[];
}

/**
 * NFKC, lower case, Markdown list markers and emphasis dropped, whitespace collapsed: two texts
 * that normalise alike are the same memory.
 */
export function normalizeForDedupe(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split("\n")
    .map((l) => l.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").replace(/[*_`~]/g, ""))
    .join(" ")
    .replace(/\s+/g, " ")
    .replace(/[\s.。!！?？;；,，]+$/u, "")
    .trim();
}

/** Jaccard similarity of the two texts' analyzer term sets (0 when either has none). */
export function termJaccard(analyzer: Analyzer, a: string, b: string): number {
  return jaccard(new Set(analyzer.terms(a)), new Set(analyzer.terms(b)));
}

/** A paragraph, list item or whole heading section of a file, with its lines. */
interface Unit {
  text: string;
  startLine: number;
  endLine: number;
}

/**
 * Find `text` in long-term memory: an exact (normalised) match, else the most similar unit by terms
 * at or above `threshold`, else — when the host has an embedder and search — the nearest long-tier
 * chunk by cosine at or above `vectorThreshold`. Null when it is new.
 */
export async function findDuplicate(
  host: LifecycleHost,
  text: string,
  options: DedupeOptions = {},
): Promise<DuplicateMatch | null> {
  const settings = host.config.lifecycle.promote;
  const threshold = options.threshold ?? settings.threshold;
  const vectorThreshold = options.vectorThreshold ?? settings.vectorThreshold;
  const analyzer = hostAnalyzer(host);
  const wanted = normalizeForDedupe(text);
  if (!wanted) return null;
  const terms = new Set(analyzer.terms(text));
  let best: DuplicateMatch | null = null;
  for (const path of options.files ?? (await longTermFiles(host))) {
    const content = await readFile(workspacePath(host.workspace, path), "utf8").catch(() => null);
    if (content === null) continue;
    for (const unit of units(content)) {
      const norm = normalizeForDedupe(unit.text);
      if (norm === wanted) return { path, ...unit, method: "exact", similarity: 1 };
      const similarity = jaccard(terms, new Set(analyzer.terms(unit.text)));
      if (similarity >= threshold && similarity > (best?.similarity ?? 0)) {
        best = { path, ...unit, method: "lexical", similarity };
      }
    }
  }
  if (best) return best;
  if (host.embedder && host.search)
    return vectorDuplicate(host, host.embedder, text, vectorThreshold);
  return null;
}

/**
 * The vector side: the index names the nearest long-tier chunks; the paragraphs and entries inside
 * them are embedded with the text and compared one by one (a whole chunk would dilute a one-line
 * fact). Null when nothing is close enough, or when vectors are unavailable (no index vectors yet,
 * provider down): the lexical answer stands then.
 */
async function vectorDuplicate(
  host: LifecycleHost,
  embedder: Embedder,
  text: string,
  threshold: number,
): Promise<DuplicateMatch | null> {
  const response = await host
    .search?.(text, { mode: "vector", tiers: ["long"], maxResults: 3, minScore: 0 })
    .catch(() => null);
  if (!response || response.degraded) return null;
  const pool: Array<Unit & { path: string }> = [];
  for (const r of response.results) {
    const content = await readFile(workspacePath(host.workspace, r.path), "utf8").catch(() => null);
    if (content === null) continue;
    for (const u of units(content)) {
      if (u.startLine <= r.endLine && r.startLine <= u.endLine) pool.push({ ...u, path: r.path });
    }
  }
  if (pool.length === 0) return null;
  const vectors = await embedder.embedBatch([text, ...pool.map((u) => u.text)]).catch(() => null);
  if (!vectors) return null;
  const [query, ...rest] = vectors;
  let best: DuplicateMatch | null = null;
  for (const [i, u] of pool.entries()) {
    const similarity = cosine(query as Float32Array, rest[i] as Float32Array);
    if (similarity >= threshold && similarity > (best?.similarity ?? 0)) {
      best = {
        path: u.path,
        startLine: u.startLine,
        endLine: u.endLine,
        text: u.text,
        method: "vector",
        similarity,
      };
    }
  }
  return best;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Workspace paths of every long-tier Markdown file. */
export async function longTermFiles(host: LifecycleHost): Promise<string[]> {
  const tierOf = hostTierOf(host);
  const { files } = await scanWorkspace({ workspace: host.workspace });
  return files.map((f) => f.path).filter((p) => tierOf(p) === "long");
}

/**
 * Paragraphs and list items (each alone) and the body of every heading section (whole), skipping
 * front matter and headings, so a fact matches whether it was written as a line or an entry.
 */
function units(content: string): Unit[] {
  const lines = content.split("\n").map((l) => l.replace(/\r$/, ""));
  const out: Unit[] = [];
  let start = 0;
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) start = end + 1;
  }
  let block: Unit | null = null;
  let section: Unit | null = null;
  const flush = () => {
    if (block) out.push(block);
    block = null;
  };
  const closeSection = () => {
    const s = section as Unit | null;
    if (s?.text.trim()) out.push({ ...s, text: s.text.trim() });
    section = null;
  };
  for (let i = start; i < lines.length; i++) {
    const line = lines[i] as string;
    const n = i + 1;
    if (/^#{1,6}\s/.test(line)) {
      flush();
      closeSection();
      section = { text: "", startLine: n + 1, endLine: n };
      continue;
    }
    if (section) {
      const s = section as Unit;
      s.text += `${line}\n`;
      if (line.trim()) s.endLine = n;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    if (/^\s*(?:[-*+]|\d+[.)])\s+/.test(line)) flush();
    if (block) {
      const b = block as Unit;
      b.text += `\n${line}`;
      b.endLine = n;
    } else block = { text: line, startLine: n, endLine: n };
  }
  flush();
  closeSection();
  return out;
}
