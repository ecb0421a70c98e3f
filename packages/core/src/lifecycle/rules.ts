import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import type { EngramConfig } from "../config/schema.js";
import { EngramError } from "../errors.js";
import { localDate } from "../workspace/clock.js";
import { readFrontMatter } from "../workspace/front-matter.js";
import { isValidDate } from "../workspace/layout.js";
import { resolveLayout, THREE_TIER_PATHS } from "../workspace/presets.js";
import { AGE_RE, type LifecycleRule } from "./config-schema.js";
import { entryKind, walk, workspacePath } from "./files.js";

const ARCHIVE = THREE_TIER_PATHS.archiveDir;

/**
 * The rules in force: `lifecycle.rules` when the config gives them, else the defaults, which
 * implement the three-tier flow table:
 *
 * | rule | from | when | to |
 * |---|---|---|---|
 * | `daily-retention` | `<dailyLogDir>/YYYY-MM-DD.md` | dated more than `retentionDays` (7) days before today | `memory/archive/daily/` (appended when already there) |
 * | `session-expired` | `memory/short-term/sessions/*.md`, `current-session.md` | untouched for `sessionHours` (24) h | `memory/archive/sessions/YYYY/MM/DD/` |
 * | `session-ended` | `memory/short-term/sessions/*.md` | front matter `ended: true` | same |
 * | `project-done` | `memory/mid-term/projects/<id>/` | `status.md` says `done` | `memory/archive/projects/<id>`; its Decisions and Lessons become promotion candidates |
 * | `project-cancelled` | same | `status: cancelled` | `memory/archive/projects/<id>` |
 * | `decision-superseded` | `memory/long-term/decisions/*.md` | `status: superseded` | `memory/archive/decisions/`, leaving a pointer stub |
 */
export function lifecycleRules(config: EngramConfig): LifecycleRule[] {
  if (config.lifecycle.rules) return config.lifecycle.rules;
  const { retentionDays, sessionHours } = config.lifecycle;
  const daily = resolveLayout(config).dailyLogDir;
  const sessionsTo = `${ARCHIVE}/sessions/{yyyy}/{mm}/{dd}/{name}`;
  const projects = `${THREE_TIER_PATHS.projectsDir}/*/`;
  return [
    rule(
      "daily-retention",
      `${daily}/????-??-??.md`,
      { olderThan: `${retentionDays}d` },
      "archive",
      `${ARCHIVE}/daily/{name}`,
      { onCollision: "append" },
    ),
    rule(
      "session-expired",
      `${THREE_TIER_PATHS.sessionsDir}/*.md`,
      { olderThan: `${sessionHours}h` },
      "archive",
      sessionsTo,
    ),
    rule(
      "session-ended",
      `${THREE_TIER_PATHS.sessionsDir}/*.md`,
      { ended: true },
      "archive",
      sessionsTo,
    ),
    rule(
      "current-session-expired",
      THREE_TIER_PATHS.currentSession,
      { olderThan: `${sessionHours}h` },
      "archive",
      sessionsTo,
    ),
    rule("project-done", projects, { status: ["done"] }, "archive", `${ARCHIVE}/projects/{id}`, {
      collect: ["Decisions", "Lessons"],
    }),
    rule(
      "project-cancelled",
      projects,
      { status: ["cancelled"] },
      "archive",
      `${ARCHIVE}/projects/{id}`,
    ),
    rule(
      "decision-superseded",
      `${THREE_TIER_PATHS.decisionsDir}/*.md`,
      { status: ["superseded"] },
      "supersede",
      `${ARCHIVE}/decisions/{name}`,
    ),
  ];
}

function rule(
  name: string,
  from: string,
  when: LifecycleRule["when"],
  action: LifecycleRule["action"],
  to: string,
  extra: Partial<Pick<LifecycleRule, "onCollision" | "collect">> = {},
): LifecycleRule {
  return {
    name,
    from,
    when,
    action,
    to,
    onCollision: extra.onCollision ?? "suffix",
    ...(extra.collect ? { collect: extra.collect } : {}),
  };
}

/** A file or folder a rule's `from` matches, with what its conditions look at. */
export interface RuleSubject {
  /** Workspace-relative POSIX path. */
  rel: string;
  kind: "file" | "folder";
  /** Front matter of the file (a folder: of its `status.md`). */
  meta: Record<string, unknown>;
  /** The day the subject belongs to, and whether that came from a date-only source. */
  date: Date;
  dateOnly: boolean;
}

/** Every subject `rule.from` matches right now (archive contents and pointer stubs excluded). */
export async function ruleSubjects(ws: string, rule: LifecycleRule): Promise<RuleSubject[]> {
  const folder = rule.from.endsWith("/");
  const glob = folder ? rule.from.slice(0, -1) : rule.from;
  const { base, isGlob } = picomatch.scan(glob);
  const root = isGlob ? base : path.posix.dirname(glob);
  if (!root || root === ".") {
    throw new EngramError(
      "CONFIG_INVALID",
      `lifecycle rule "${rule.name}": from "${rule.from}" names no folder`,
      {
        hint: 'start "from" with a folder, e.g. "memory/*.md"',
      },
    );
  }
  if ((await entryKind(workspacePath(ws, root))) !== "dir") return [];
  const isMatch = picomatch(glob, { dot: false });
  const entries = await walk(ws, root);
  const out: RuleSubject[] = [];
  for (const e of entries) {
    if (e.kind !== (folder ? "dir" : "file") || !isMatch(e.rel)) continue;
    if (e.rel.startsWith(`${ARCHIVE}/`) || path.posix.basename(e.rel).startsWith(".")) continue;
    const subject = await describeSubject(ws, e.rel, folder ? "folder" : "file");
    if (subject && subject.meta.archived_to === undefined) out.push(subject);
  }
  return out;
}

async function describeSubject(
  ws: string,
  rel: string,
  kind: "file" | "folder",
): Promise<RuleSubject | null> {
  const metaFile = kind === "folder" ? `${rel}/status.md` : rel;
  let meta: Record<string, unknown> = {};
  if (/\.md$/i.test(metaFile)) {
    const text = await readFile(workspacePath(ws, metaFile), "utf8").catch(() => null);
    if (text !== null) {
      try {
        meta = readFrontMatter(text, metaFile).data;
      } catch {
        meta = {};
      }
    }
  }
  const named = /^(\d{4}-\d{2}-\d{2})/.exec(path.posix.basename(rel))?.[1];
  if (named && isValidDate(named)) {
    return { rel, kind, meta, date: localMidnight(named), dateOnly: true };
  }
  for (const key of ["updated", "ended_at", "date"]) {
    const parsed = parseDateValue(meta[key]);
    if (parsed) return { rel, kind, meta, ...parsed };
  }
  const st = await stat(workspacePath(ws, kind === "folder" ? metaFile : rel)).catch(() => null);
  const mtime = st ?? (await stat(workspacePath(ws, rel)));
  return { rel, kind, meta, date: mtime.mtime, dateOnly: false };
}

function parseDateValue(value: unknown): { date: Date; dateOnly: boolean } | null {
  if (value instanceof Date && !Number.isNaN(value.getTime()))
    return { date: value, dateOnly: false };
  if (typeof value !== "string") return null;
  if (isValidDate(value)) return { date: localMidnight(value), dateOnly: true };
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : { date: d, dateOnly: false };
}

function localMidnight(date: string): Date {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d);
}

/** Why `subject` meets every condition of `rule.when` at `now`, or null when it does not. */
export function ruleReason(rule: LifecycleRule, subject: RuleSubject, now: Date): string | null {
  const when = rule.when ?? {};
  const reasons: string[] = [];
  if (when.olderThan) {
    const age = ageOf(subject, now, when.olderThan);
    if (!age) return null;
    reasons.push(age);
  }
  if (when.status) {
    const status = typeof subject.meta.status === "string" ? subject.meta.status : undefined;
    if (!status || !when.status.includes(status)) return null;
    reasons.push(
      `${subject.kind === "folder" ? "status.md says" : "front matter says"} status: ${status}`,
    );
  }
  if (when.ended !== undefined) {
    const ended =
      subject.meta.ended === true ||
      subject.meta.ended_at !== undefined ||
      subject.meta.status === "ended";
    if (ended !== when.ended) return null;
    reasons.push(ended ? "the session has ended" : "the session has not ended");
  }
  return reasons.length ? reasons.join("; ") : "matched (the rule has no conditions)";
}

function ageOf(subject: RuleSubject, now: Date, limit: string): string | null {
  const [, nText, unit] = AGE_RE.exec(limit) as RegExpExecArray;
  const n = Number(nText);
  if (subject.dateOnly && unit === "d") {
    const days = Math.round(
      (localMidnight(localDate(now)).getTime() - subject.date.getTime()) / 86_400_000,
    );
    return days > n
      ? `dated ${localDate(subject.date)}, ${days} days before today (keeps ${n})`
      : null;
  }
  const ms = { d: 86_400_000, h: 3_600_000, m: 60_000 }[unit as "d" | "h" | "m"] * n;
  const age = now.getTime() - subject.date.getTime();
  if (age <= ms) return null;
  const hours = Math.floor(age / 3_600_000);
  return `last updated ${subject.date.toISOString()}, ${hours} h ago (limit ${limit})`;
}

/**
 * The target of `subject` under `rule.to`: placeholders `{name}` (file or folder name), `{stem}`
 * (name without extension), `{id}` (folder name or stem), `{date}`, `{yyyy}`, `{mm}`, `{dd}`.
 *
 * @throws EngramError `CONFIG_INVALID` for an unknown placeholder.
 */
export function ruleTarget(rule: LifecycleRule, subject: RuleSubject): string {
  const name = path.posix.basename(subject.rel);
  const stem = subject.kind === "folder" ? name : name.replace(/\.[^.]*$/, "");
  const date = localDate(subject.date);
  const [yyyy, mm, dd] = date.split("-") as [string, string, string];
  const values: Record<string, string> = { name, stem, id: stem, date, yyyy, mm, dd };
  return rule.to.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) {
      throw new EngramError(
        "CONFIG_INVALID",
        `lifecycle rule "${rule.name}": unknown placeholder {${key}} in "to"`,
        {
          hint: "use {name}, {stem}, {id}, {date}, {yyyy}, {mm} or {dd}",
        },
      );
    }
    return value;
  });
}
