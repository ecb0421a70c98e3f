import { EngramError } from "../errors.js";
import { queryTermsOf } from "../text/analyzer.js";
import { TIERS } from "../tier.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { THREE_TIER_PATHS } from "../workspace/presets.js";
import { readTextIfExists, writeText } from "./files.js";
import type { TierHost } from "./host.js";
import { assertName, assertText, assertTitle } from "./names.js";
import { splitSections } from "./sections.js";

/** Knowledge to add to a domain. */
export interface KnowledgeInput {
  /** One line: the entry's `## ` heading. */
  title: string;
  /** Markdown without `#`/`##` headings (use `###` inside an entry). */
  text: string;
  tags?: string[];
}

/** One knowledge entry: a `## title` section of `knowledge_base/<domain>.md` with a `tags:` line. */
export interface KnowledgeEntry {
  domain: string;
  title: string;
  tags: string[];
  /** The entry's text, without its heading and `tags:` line. */
  text: string;
  /** Workspace-relative path of the domain file. */
  path: string;
  /** 1-based line of the `## ` heading. */
  startLine: number;
  /** 1-based last line of the entry's text. */
  endLine: number;
}

/** A knowledge entry found by a search, with the score of the best result inside it. */
export interface KnowledgeItem extends KnowledgeEntry {
  score: number;
}

/** Options of {@link searchKnowledge}. */
export interface SearchKnowledgeOptions {
  /** Only this domain's file. */
  domain?: string;
  /** Only entries carrying every one of these tags (compared case-insensitively, NFKC). */
  tags?: string[];
  /** Most entries (default: the config's `search.maxResults`). */
  maxResults?: number;
}

const KB = THREE_TIER_PATHS.knowledgeDir;
const TAGS_RE = /^tags:[ \t]*(.*)$/i;
const checkDomain = (domain: unknown) => assertName("knowledge domain", domain, "databases");
const normTag = (tag: string) => tag.normalize("NFKC").trim().toLowerCase();

/**
 * Appends an entry to `memory/long-term/knowledge_base/<domain>.md` (created with a `# <domain>`
 * title): `## <title>`, a `tags: a, b` line when there are tags, then the text. The file is
 * replaced atomically under the same lock as appends to it, so nothing written before is lost.
 *
 * @throws EngramError `INVALID_ARGUMENT` for a bad domain, title, text or tag.
 */
export async function addKnowledge(
  host: TierHost,
  domain: string,
  input: KnowledgeInput,
): Promise<KnowledgeEntry> {
  checkDomain(domain);
  if (input === null || typeof input !== "object") {
    throw new EngramError("INVALID_ARGUMENT", "knowledge must be an object", {
      hint: 'pass e.g. { title: "FTS5", text: "…", tags: ["sqlite"] }',
    });
  }
  const title = assertTitle("knowledge title", input.title);
  const text = assertText("knowledge text", input.text);
  if (/^##?[ \t]/m.test(text)) {
    throw new EngramError("INVALID_ARGUMENT", "knowledge text must not contain # or ## headings", {
      hint: "use ### for headings inside an entry; each entry is one ## section",
    });
  }
  const tags = checkTags(input.tags ?? []);
  const rel = `${KB}/${domain}.md`;
  // The lock `append:<file>` is the one workspace appends take, so this read-modify-write and an
  // appendLongTerm to the same file never interleave.
  const entry = await withWorkspaceLock(host.workspace, `append:${rel}`, async () => {
    const before = (await readTextIfExists(host.workspace, rel)) ?? `# ${domain}\n`;
    const base = before === "" ? `# ${domain}\n` : before.endsWith("\n") ? before : `${before}\n`;
    const lines = [`## ${title}`, "", ...(tags.length ? [`tags: ${tags.join(", ")}`, ""] : [])];
    const startLine = base.split("\n").length + 1; // after one blank separator line
    const block = [...lines, ...text.split("\n")];
    await writeText(host.workspace, rel, `${base}\n${block.join("\n")}\n`);
    return { startLine, endLine: startLine + block.length - 1 };
  });
  host.noteWritten(rel);
  return { domain, title, tags, text, path: rel, ...entry };
}

/** The entries of a knowledge domain file's text (`path` names it in the result). */
export function parseKnowledge(text: string, domain: string, path: string): KnowledgeEntry[] {
  const doc = splitSections(text);
  const entries: KnowledgeEntry[] = [];
  let line = doc.preamble.length + 1;
  for (const s of doc.sections) {
    const startLine = line;
    line += 1 + s.lines.length;
    let tags: string[] = [];
    const body: string[] = [];
    for (const l of s.lines) {
      const m = tags.length === 0 && body.every((b) => b.trim() === "") ? TAGS_RE.exec(l) : null;
      if (m)
        tags = (m[1] ?? "")
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean);
      else body.push(l);
    }
    let last = s.lines.length;
    while (last > 0 && s.lines[last - 1]?.trim() === "") last--;
    entries.push({
      domain,
      title: s.title,
      tags,
      text: body.join("\n").trim(),
      path,
      startLine,
      endLine: startLine + last,
    });
  }
  return entries;
}

/**
 * Searches the knowledge base with `memory.search` (limited to `knowledge_base/`, or to one
 * domain's file) and returns the entries the results fall in, best first, filtered by `tags`.
 * When a result spans several entries, those sharing a query term win; the others are kept only
 * when none does (a purely semantic match).
 *
 * @throws EngramError `INVALID_ARGUMENT` for an empty query, a bad domain or tag.
 */
export async function searchKnowledge(
  host: TierHost,
  query: string,
  options: SearchKnowledgeOptions = {},
): Promise<KnowledgeItem[]> {
  assertText("query", query);
  const domain = options.domain === undefined ? undefined : checkDomain(options.domain);
  const wanted = checkTags(options.tags ?? []).map(normTag);
  const pathPrefix = domain === undefined ? `${KB}/` : `${KB}/${domain}.md`;
  const response = await host.search(query, {
    pathPrefix,
    tiers: TIERS,
    ...(options.maxResults !== undefined ? { maxResults: options.maxResults * 4 } : {}),
  });
  const queryTerms = new Set(queryTermsOf(host.analyzer, query));
  const files = new Map<string, KnowledgeEntry[]>();
  const best = new Map<string, KnowledgeItem>();
  for (const result of response.results) {
    if (result.path !== pathPrefix && !result.path.startsWith(`${KB}/`)) continue;
    let entries = files.get(result.path);
    if (!entries) {
      const text = (await readTextIfExists(host.workspace, result.path)) ?? "";
      const name = result.path.slice(KB.length + 1).replace(/\.md$/i, "");
      entries = parseKnowledge(text, name, result.path);
      files.set(result.path, entries);
    }
    const inRange = entries.filter(
      (e) => e.startLine <= result.endLine && result.startLine <= e.endLine,
    );
    const matching = inRange.filter((e) =>
      host.analyzer.terms(`${e.title}\n${e.text}`).some((t) => queryTerms.has(t)),
    );
    for (const e of matching.length ? matching : inRange) {
      const tags = new Set(e.tags.map(normTag));
      if (!wanted.every((t) => tags.has(t))) continue;
      const key = `${e.path}:${e.startLine}`;
      if ((best.get(key)?.score ?? -1) < result.score) best.set(key, { ...e, score: result.score });
    }
  }
  const items = [...best.values()].sort((a, b) => b.score - a.score || a.startLine - b.startLine);
  return options.maxResults === undefined ? items : items.slice(0, options.maxResults);
}

function checkTags(tags: unknown): string[] {
  if (!Array.isArray(tags)) throw tagError(String(tags));
  return tags.map((tag) => {
    const t = typeof tag === "string" ? tag.trim() : "";
    if (t === "" || /[,\r\n]/.test(t)) throw tagError(String(tag));
    return t;
  });
}

function tagError(tag: string): EngramError {
  return new EngramError("INVALID_ARGUMENT", `tag ${JSON.stringify(tag)} is not allowed`, {
    hint: 'pass tags as an array of non-empty strings without commas, e.g. ["sqlite", "数据库"]',
  });
}
