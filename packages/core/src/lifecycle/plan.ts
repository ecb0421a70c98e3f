import { readFile } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../text/hash.js";
import { localDate } from "../workspace/clock.js";
import { readFrontMatter, writeFrontMatter } from "../workspace/front-matter.js";
import type { LifecycleRule } from "./config-schema.js";
import { entryKind, hashOrNull, walk, workspacePath } from "./files.js";
import { hostNow, type LifecycleHost, type LifecyclePlanOptions, type Summariser } from "./host.js";
import type { JournalOutcome } from "./journal.js";
import { lifecycleRules, type RuleSubject, ruleReason, ruleSubjects, ruleTarget } from "./rules.js";
import { sectionEntries } from "./sections.js";
import type { Step } from "./steps.js";

/** A decision or lesson of a finished project, suggested for long-term memory. */
export interface CollectedEntry {
  project: string;
  heading: string;
  text: string;
  /** Where it lives after the apply (the archived `notes.md`), with its lines. */
  path: string;
  startLine: number;
  endLine: number;
}

/** One move the plan makes, with the rule and the reason. */
export interface PlanItem {
  rule: string;
  action: LifecycleRule["action"];
  kind: "file" | "folder";
  from: string;
  to: string;
  reason: string;
  /** Set when the natural target was taken: a suffixed name, or appended to the existing file. */
  collision?: "suffixed" | "appended";
  /** Entries of `notes.md` that become promotion candidates (rules with `collect`). */
  collected?: CollectedEntry[];
}

/** Everything an apply will do: the moves (for people) and the steps (for the journal). */
export interface LifecyclePlan {
  createdAt: string;
  items: PlanItem[];
  steps: Step[];
  /** Texts the steps write, by SHA-256 (pointer stubs, merged logs). */
  contents: Record<string, string>;
  /** Matches left alone, with why (e.g. a symbolic link inside a project folder). */
  skipped: Array<{ rule: string; path: string; reason: string }>;
  /** Set when an interrupted apply or undo was finished (or rolled back) before planning. */
  recovered?: JournalOutcome;
}

/**
 * Evaluate the rules against the workspace as it is now. Reads only: nothing is moved. Each path is
 * claimed by the first rule that matches it.
 */
export async function computePlan(
  host: LifecycleHost,
  options: LifecyclePlanOptions = {},
): Promise<LifecyclePlan> {
  const ws = host.workspace;
  const now = hostNow(host, options);
  const builder = new PlanBuilder(ws, now, options.summarise);
  for (const rule of lifecycleRules(host.config)) {
    for (const subject of await ruleSubjects(ws, rule)) {
      if (builder.claimed(subject.rel)) continue;
      const reason = ruleReason(rule, subject, now);
      if (!reason) continue;
      if (options.select && !options.select({ rule: rule.name, from: subject.rel })) {
        builder.claim(subject.rel);
      } else {
        await builder.add(rule, subject, reason);
      }
    }
  }
  return builder.plan();
}

/** Accumulates items and steps, tracking planned paths so targets never collide. */
export class PlanBuilder {
  readonly #ws: string;
  readonly #now: Date;
  readonly #items: PlanItem[] = [];
  readonly #steps: Step[] = [];
  readonly #contents: Record<string, string> = {};
  readonly #skipped: LifecyclePlan["skipped"] = [];
  /** Paths the plan creates (files and folders) or empties. */
  readonly #created = new Set<string>();
  readonly #claimed = new Set<string>();
  readonly #summarise: Summariser | undefined;

  constructor(ws: string, now: Date, summarise?: Summariser) {
    this.#ws = ws;
    this.#now = now;
    this.#summarise = summarise;
  }

  claimed(rel: string): boolean {
    return [...this.#claimed].some((c) => rel === c || rel.startsWith(`${c}/`));
  }

  /** Mark `rel` as decided without planning anything for it (a move that was rejected). */
  claim(rel: string): void {
    this.#claimed.add(rel);
  }

  /** Plan what `rule` does to `subject`. */
  async add(rule: LifecycleRule, subject: RuleSubject, reason: string): Promise<PlanItem | null> {
    this.#claimed.add(subject.rel);
    const natural = ruleTarget(rule, subject);
    if (subject.kind === "folder") return this.#addFolder(rule, subject, natural, reason);
    const hash = await hashOrNull(workspacePath(this.#ws, subject.rel));
    if (hash === null) return null;
    const item: PlanItem = {
      rule: rule.name,
      action: rule.action,
      kind: "file",
      from: subject.rel,
      to: natural,
      reason,
    };
    const taken = await this.#taken(natural);
    if (
      taken &&
      rule.onCollision === "append" &&
      rule.action === "archive" &&
      !this.#created.has(natural)
    ) {
      await this.#appendInto(subject.rel, natural, hash);
      item.collision = "appended";
    } else {
      if (taken) {
        item.to = await this.#freeName(natural);
        item.collision = "suffixed";
      }
      await this.#mkdirs(path.posix.dirname(item.to));
      this.#steps.push({ kind: "move", from: subject.rel, to: item.to, hash });
      this.#created.add(item.to);
      if (rule.action === "archive") await this.#summary(subject.rel, item.to, hash);
    }
    if (rule.action === "supersede") await this.#stub(subject, item.to);
    this.#items.push(item);
    return item;
  }

  /** Plan a plain move of one file (typed ops use it). */
  async move(ruleName: string, from: string, to: string, reason: string): Promise<PlanItem | null> {
    const rule: LifecycleRule = {
      name: ruleName,
      from,
      to,
      action: "archive",
      onCollision: "suffix",
      when: {},
    };
    const subject: RuleSubject = {
      rel: from,
      kind: "file",
      meta: {},
      date: this.#now,
      dateOnly: false,
    };
    return this.add(rule, subject, reason);
  }

  /** Plan replacing (or creating) `rel` with `content`, e.g. an appended long-term entry. */
  async put(rel: string, content: string): Promise<void> {
    const before = await hashOrNull(workspacePath(this.#ws, rel));
    const after = this.#content(content);
    if (before === after) return;
    if (before === null) await this.#mkdirs(path.posix.dirname(rel));
    this.#steps.push({ kind: "put", path: rel, before, after });
  }

  /** Record an item that only `put`s (e.g. a promotion). */
  note(item: PlanItem): void {
    this.#items.push(item);
  }

  plan(): LifecyclePlan {
    return {
      createdAt: this.#now.toISOString(),
      items: [...this.#items],
      steps: [...this.#steps],
      contents: { ...this.#contents },
      skipped: [...this.#skipped],
    };
  }

  async #addFolder(
    rule: LifecycleRule,
    subject: RuleSubject,
    natural: string,
    reason: string,
  ): Promise<PlanItem | null> {
    const entries = await walk(this.#ws, subject.rel);
    const odd = entries.find((e) => e.kind === "other");
    if (odd) {
      this.#skipped.push({
        rule: rule.name,
        path: subject.rel,
        reason: `${odd.rel} is a link or special file; move the folder by hand`,
      });
      return null;
    }
    const to = (await this.#taken(natural)) ? await this.#freeName(natural) : natural;
    const item: PlanItem = {
      rule: rule.name,
      action: rule.action,
      kind: "folder",
      from: subject.rel,
      to,
      reason,
    };
    if (to !== natural) item.collision = "suffixed";
    await this.#mkdirs(to);
    for (const e of entries) {
      const target = to + e.rel.slice(subject.rel.length);
      if (e.kind === "dir") {
        this.#steps.push({ kind: "mkdir", path: target });
        this.#created.add(target);
        continue;
      }
      const hash = await hashOrNull(workspacePath(this.#ws, e.rel));
      if (hash === null) continue;
      this.#steps.push({ kind: "move", from: e.rel, to: target, hash });
      this.#created.add(target);
    }
    const dirs = [subject.rel, ...entries.filter((e) => e.kind === "dir").map((e) => e.rel)];
    for (const dir of dirs.sort((a, b) => b.length - a.length))
      this.#steps.push({ kind: "rmdir", path: dir });
    if (rule.collect?.length) item.collected = await this.#collect(subject.rel, to, rule.collect);
    this.#items.push(item);
    return item;
  }

  async #collect(
    folder: string,
    to: string,
    headings: readonly string[],
  ): Promise<CollectedEntry[]> {
    const text = await readFile(workspacePath(this.#ws, `${folder}/notes.md`), "utf8").catch(
      () => null,
    );
    if (text === null) return [];
    const project = path.posix.basename(folder);
    return sectionEntries(text, headings).map((e) => ({ project, ...e, path: `${to}/notes.md` }));
  }

  /** Merge a daily log into its archived namesake: the archive gets the text appended, verbatim. */
  async #appendInto(from: string, to: string, srcHash: string): Promise<void> {
    const [existing, incoming] = await Promise.all([
      readFile(workspacePath(this.#ws, to), "utf8"),
      readFile(workspacePath(this.#ws, from), "utf8"),
    ]);
    const sep =
      existing === "" || existing.endsWith("\n\n") ? "" : existing.endsWith("\n") ? "\n" : "\n\n";
    const merged = `${existing}${sep}${incoming}`;
    this.#steps.push({
      kind: "put",
      path: to,
      before: sha256Hex(existing),
      after: this.#content(merged),
    });
    this.#steps.push({ kind: "put", path: from, before: srcHash, after: null });
  }

  /** With a summariser: the archived copy gets a summary on top (front matter kept first). */
  async #summary(from: string, to: string, hash: string): Promise<void> {
    if (!this.#summarise || !/\.md$/i.test(from)) return;
    const text = await readFile(workspacePath(this.#ws, from), "utf8");
    const summary = (await this.#summarise({ kind: "archive", path: to, text })).trim();
    if (!summary) return;
    const lines = text.split("\n");
    let head = 0;
    try {
      head = readFrontMatter(text, from).lines;
    } catch {
      head = 0;
    }
    const quote = summary
      .split("\n")
      .map((l, i) => (i === 0 ? `> **Summary:** ${l}` : `> ${l}`))
      .join("\n");
    const merged = [...lines.slice(0, head), quote, "", ...lines.slice(head)].join("\n");
    this.#steps.push({ kind: "put", path: to, before: hash, after: this.#content(merged) });
  }

  /** A pointer left where a superseded file was. */
  async #stub(subject: RuleSubject, archived: string): Promise<void> {
    const text = await readFile(workspacePath(this.#ws, subject.rel), "utf8");
    let data: Record<string, unknown> = {};
    let body = text;
    try {
      ({ data, body } = readFrontMatter(text, subject.rel));
    } catch {
      // keep the defaults: the original is archived verbatim either way
    }
    const title = /^#\s+(.+)$/m.exec(body)?.[1]?.trim() ?? path.posix.basename(subject.rel, ".md");
    const by = typeof data.superseded_by === "string" ? data.superseded_by : undefined;
    const link = path.posix.relative(path.posix.dirname(subject.rel), archived);
    const stub = writeFrontMatter(
      {
        status: "superseded",
        ...(by ? { superseded_by: by } : {}),
        archived_to: archived,
        archived_at: localDate(this.#now),
      },
      `# ${title}\n\nSuperseded by ${by ?? "a later decision"}; archived at [${archived}](${link}) on ${localDate(this.#now)}.\n`,
    );
    this.#steps.push({ kind: "put", path: subject.rel, before: null, after: this.#content(stub) });
  }

  #content(text: string): string {
    const hash = sha256Hex(text);
    this.#contents[hash] = text;
    return hash;
  }

  async #taken(rel: string): Promise<boolean> {
    return this.#created.has(rel) || (await entryKind(workspacePath(this.#ws, rel))) !== null;
  }

  /** `name-2.md`, `name-3.md`, … (folders: `id-2`) — the first free one. */
  async #freeName(rel: string): Promise<string> {
    const dir = path.posix.dirname(rel);
    const base = path.posix.basename(rel);
    const dot = base.lastIndexOf(".");
    const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ""];
    for (let n = 2; ; n++) {
      const candidate = `${dir}/${stem}-${n}${ext}`;
      if (!(await this.#taken(candidate))) return candidate;
    }
  }

  /** mkdir steps for every missing folder on the way to `dir`, outermost first. */
  async #mkdirs(dir: string): Promise<void> {
    const missing: string[] = [];
    for (let d = dir; d && d !== "."; d = path.posix.dirname(d)) {
      if (this.#created.has(d) || (await entryKind(workspacePath(this.#ws, d))) !== null) break;
      missing.unshift(d);
    }
    for (const d of missing) {
      this.#steps.push({ kind: "mkdir", path: d });
      this.#created.add(d);
    }
  }
}
