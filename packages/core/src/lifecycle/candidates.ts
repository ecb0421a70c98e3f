import { readFile } from "node:fs/promises";
import { relevanceScore } from "../search/relevance.js";
import { isSensitiveFile, overlapsPrivate, privateRanges } from "../workspace/privacy.js";
import { workspacePath } from "./files.js";
import { hostNow, hostTierOf, type LifecycleHost, type LifecycleTimeOptions } from "./host.js";
import { projectCandidates, type StoredProjectCandidate } from "./project-candidates.js";
import { type RecallEntry, readRecall } from "./recall.js";

/** A short-term stretch recalled often enough to suggest for long-term memory. */
export interface PromotionCandidate {
  path: string;
  startLine: number;
  endLine: number;
  text: string;
  /** `recencyWeight·recency + frequencyWeight·frequency + importanceWeight·importance`. */
  score: number;
  /** `1 / max(1, days since it was last recalled)`. */
  recency: number;
  /** Distinct queries that found it + reads of it. */
  frequency: number;
  /** 1 when marked important (`#important`, `!important`, `[important]` or ⭐), else 0. */
  importance: number;
  lastRecalledAt: string;
  /** Hashes of the distinct queries that returned it (see `queryHash`). */
  queries: string[];
}

/** What `engram lifecycle candidates` shows. */
export interface CandidatesResult {
  candidates: PromotionCandidate[];
  /** Decisions and lessons of archived projects not promoted yet. */
  projects: StoredProjectCandidate[];
}

export const IMPORTANT_RE = /(^|\s)(#important|!important|\[important\])(?=\s|$)|⭐/iu;

/**
 * Promotion candidates, best first: short-term text that searches returned for several distinct
 * queries (or that was read), scored by the seed's relevance formula
 * `recency_weight·(1/days_since) + frequency_weight·access_count + importance_weight·importance`
 * (weights in `lifecycle.candidates`). Private blocks and sensitive files are never suggested.
 */
export async function promotionCandidates(
  host: LifecycleHost,
  options: LifecycleTimeOptions & { limit?: number } = {},
): Promise<CandidatesResult> {
  const now = hostNow(host, options);
  const weights = host.config.lifecycle.candidates;
  const tierOf = hostTierOf(host);
  await host.recall?.flush();
  const recall = await readRecall(host.workspace);
  const groups = mergeRanges(
    Object.values(recall?.entries ?? {}).filter((e) => tierOf(e.path) === "short"),
  );
  const out: PromotionCandidate[] = [];
  const files = new Map<string, string | null>();
  for (const g of groups) {
    const frequency = g.queries.size + g.gets;
    if (frequency < weights.minRecalls) continue;
    if (!files.has(g.path)) {
      files.set(
        g.path,
        await readFile(workspacePath(host.workspace, g.path), "utf8").catch(() => null),
      );
    }
    const content = files.get(g.path);
    if (!content || isSensitiveFile(content)) continue;
    if (overlapsPrivate(g, privateRanges(content))) continue;
    const text = content
      .split("\n")
      .slice(g.startLine - 1, g.endLine)
      .join("\n")
      .trim();
    if (!text) continue;
    const days = Math.max(1, (now.getTime() - Date.parse(g.lastAt)) / 86_400_000);
    const recency = 1 / days;
    const importance = IMPORTANT_RE.test(text) ? 1 : 0;
    const score = relevanceScore(
      { daysSinceUpdate: days, accessCount: frequency, important: importance === 1 },
      weights,
    );
    out.push({
      path: g.path,
      startLine: g.startLine,
      endLine: g.endLine,
      text,
      score: Math.round(score * 1000) / 1000,
      recency: Math.round(recency * 1000) / 1000,
      frequency,
      importance,
      lastRecalledAt: g.lastAt,
      queries: [...g.queries],
    });
  }
  out.sort(
    (a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine,
  );
  const projects = (await projectCandidates(host.workspace)).filter((c) => !c.promotedTo);
  return { candidates: out.slice(0, options.limit ?? 10), projects };
}

interface Group {
  path: string;
  startLine: number;
  endLine: number;
  queries: Set<string>;
  gets: number;
  lastAt: string;
}

/** Overlapping recalled stretches of one file count as one candidate. */
function mergeRanges(entries: readonly RecallEntry[]): Group[] {
  const sorted = [...entries].sort(
    (a, b) => a.path.localeCompare(b.path) || a.startLine - b.startLine,
  );
  const groups: Group[] = [];
  for (const e of sorted) {
    const last = groups.at(-1);
    if (last && last.path === e.path && e.startLine <= last.endLine) {
      last.endLine = Math.max(last.endLine, e.endLine);
      for (const q of e.queries) last.queries.add(q);
      last.gets += e.gets;
      if (e.lastAt > last.lastAt) last.lastAt = e.lastAt;
    } else {
      groups.push({
        path: e.path,
        startLine: e.startLine,
        endLine: e.endLine,
        queries: new Set(e.queries),
        gets: e.gets,
        lastAt: e.lastAt,
      });
    }
  }
  return groups;
}
