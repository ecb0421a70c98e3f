import { readFile } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { localDate, localTime } from "../workspace/clock.js";
import { THREE_TIER_PATHS } from "../workspace/presets.js";
import { isSensitiveFile, stripPrivate } from "../workspace/privacy.js";
import type { ApplyOptions, ApplyResult } from "./apply.js";
import { runPlan } from "./apply.js";
import { type DuplicateMatch, findDuplicate, longTermFiles } from "./dedupe.js";
import { entryKind, workspacePath } from "./files.js";
import { hostNow, type LifecycleHost } from "./host.js";
import { recoverJournal, withLifecycleLock } from "./journal.js";
import { PlanBuilder } from "./plan.js";
import { markPromoted } from "./project-candidates.js";
import { formatEntry, promoteTarget, type Summariser } from "./promote.js";
import type { RuleSubject } from "./rules.js";
import { sectionEntries } from "./sections.js";

const SAFE_ID = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]*$/u;

function assertId(kind: string, id: string): void {
  if (typeof id !== "string" || !SAFE_ID.test(id) || id.includes("..")) {
    throw new EngramError("INVALID_ARGUMENT", `${kind} id "${String(id)}" is not a plain name`, {
      hint: "use letters, digits, _ . - (no slashes)",
    });
  }
}

/**
 * Archive a short-term session file (`memory/short-term/sessions/<id>.md`) to
 * `memory/archive/sessions/YYYY/MM/DD/` (today's date), through the journaled apply (undoable).
 *
 * @throws EngramError `FILE_NOT_FOUND` when the session file does not exist.
 */
export async function archiveSession(
  host: LifecycleHost,
  sessionId: string,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  assertId("session", sessionId);
  const from = `${THREE_TIER_PATHS.sessionsDir}/${sessionId}.md`;
  return withLifecycleLock(host, async () => {
    await recoverJournal(host);
    if ((await entryKind(workspacePath(host.workspace, from))) !== "file") {
      throw new EngramError("FILE_NOT_FOUND", `no session file ${from}`, {
        hint: "list memory/short-term/sessions/ for the session ids",
      });
    }
    const now = hostNow(host, options);
    const [yyyy, mm, dd] = localDate(now).split("-");
    const builder = new PlanBuilder(host.workspace, now);
    await builder.move(
      "archive-session",
      from,
      `${THREE_TIER_PATHS.archiveDir}/sessions/${yyyy}/${mm}/${dd}/${sessionId}.md`,
      "archive(sessionId) was called",
    );
    return runPlan(host, builder.plan(), "apply", options);
  });
}

/**
 * Append a session's text (private blocks removed) or the given text to a mid-term project's
 * `notes.md` under a `## YYYY-MM-DD HH:MM` heading, through the journaled apply.
 *
 * @throws EngramError `FILE_NOT_FOUND` for an unknown project or session; `INVALID_ARGUMENT` when
 * nothing is left to append (e.g. a sensitive session).
 */
export async function promoteToMidTerm(
  host: LifecycleHost,
  source: { sessionId: string } | { text: string },
  projectId: string,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  assertId("project", projectId);
  return withLifecycleLock(host, async () => {
    await recoverJournal(host);
    const folder = await projectFolder(
      host,
      projectId,
      "create it first (updateProject), or check the id",
    );
    let text: string;
    let from: string;
    if ("sessionId" in source) {
      assertId("session", source.sessionId);
      from = `${THREE_TIER_PATHS.sessionsDir}/${source.sessionId}.md`;
      const raw = await readFile(workspacePath(host.workspace, from), "utf8").catch(() => null);
      if (raw === null) {
        throw new EngramError("FILE_NOT_FOUND", `no session file ${from}`, {
          hint: "list memory/short-term/sessions/ for the session ids",
        });
      }
      text = stripPrivate(raw).replace(/^---\n[\s\S]*?\n---\n/, "");
    } else {
      text = source.text;
      from = "(text)";
    }
    text = text.trim();
    if (!text) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        "nothing to add to the project: the text is empty or private",
        {
          hint: "private blocks and sensitive files are never promoted",
        },
      );
    }
    const now = hostNow(host, options);
    const notes = `${folder}/notes.md`;
    const existing = await readFile(workspacePath(host.workspace, notes), "utf8").catch(
      () => `# ${projectId} notes\n`,
    );
    const builder = new PlanBuilder(host.workspace, now);
    await builder.put(
      notes,
      appendEntryText(existing, `${localDate(now)} ${localTime(now)}`, text),
    );
    builder.note({
      rule: "promote-to-mid-term",
      action: "archive",
      kind: "file",
      from,
      to: notes,
      reason: `promoteToMidTerm(${projectId})`,
    });
    return runPlan(host, builder.plan(), "apply", options);
  });
}

/** What {@link promoteToLongTerm} did. */
export interface LongTermPromotion extends ApplyResult {
  /** Entries written to long-term memory. */
  promoted: Array<{ heading: string; text: string }>;
  /** Entries already there, with where. */
  duplicates: Array<{ heading: string; text: string; duplicate: DuplicateMatch }>;
  /** Where the project folder went. */
  archivedTo: string;
}

/**
 * A finished project's `## Decisions` and `## Lessons` (from `notes.md`; private blocks and
 * sensitive notes excluded) go to long-term memory — each deduplicated, optionally condensed by
 * `summarise` — and the project folder moves to `memory/archive/projects/<id>`. One journaled
 * apply: undo reverses both.
 */
export async function promoteToLongTerm(
  host: LifecycleHost,
  projectId: string,
  options: ApplyOptions & { to?: string; summarise?: Summariser } = {},
): Promise<LongTermPromotion> {
  assertId("project", projectId);
  return withLifecycleLock(host, async () => {
    await recoverJournal(host);
    const folder = await projectFolder(
      host,
      projectId,
      "check the id; archived projects are under memory/archive/projects/",
    );
    const now = hostNow(host, options);
    const notesRaw = await readFile(
      workspacePath(host.workspace, `${folder}/notes.md`),
      "utf8",
    ).catch(() => "");
    const notes = isSensitiveFile(notesRaw) ? "" : stripPrivate(notesRaw);
    const target = promoteTarget(host, options.to);
    const files = [...new Set([target, ...(await longTermFiles(host))])];
    const promoted: LongTermPromotion["promoted"] = [];
    const duplicates: LongTermPromotion["duplicates"] = [];
    const stamp = `${localDate(now)} ${localTime(now)}`;
    let content = await readFile(workspacePath(host.workspace, target), "utf8").catch(() => null);
    const original = content;
    for (const e of sectionEntries(notes, ["Decisions", "Lessons"])) {
      let text = e.text;
      if (options.summarise)
        text = (await options.summarise({ kind: "promote", path: target, text })).trim();
      const duplicate =
        (await findDuplicate(host, text, { files })) ??
        (promoted.some((p) => p.text === text)
          ? {
              path: target,
              startLine: 0,
              endLine: 0,
              method: "exact" as const,
              similarity: 1,
              text,
            }
          : null);
      if (duplicate) {
        duplicates.push({ heading: e.heading, text, duplicate });
        continue;
      }
      content = appendEntryText(
        content ?? "# Long-term Memory\n",
        stamp,
        formatEntry(text, { section: `${projectId}: ${e.heading}` }),
      );
      promoted.push({ heading: e.heading, text });
    }
    const builder = new PlanBuilder(host.workspace, now);
    if (content !== null && content !== original) {
      await builder.put(target, content);
      builder.note({
        rule: "promote-to-long-term",
        action: "archive",
        kind: "file",
        from: `${folder}/notes.md`,
        to: target,
        reason: `${promoted.length} decisions/lessons promoted`,
      });
    }
    const subject: RuleSubject = {
      rel: folder,
      kind: "folder",
      meta: {},
      date: now,
      dateOnly: false,
    };
    const item = await builder.add(
      {
        name: "promote-to-long-term",
        from: `${THREE_TIER_PATHS.projectsDir}/*/`,
        when: {},
        action: "archive",
        onCollision: "suffix",
        to: `${THREE_TIER_PATHS.archiveDir}/projects/{id}`,
      },
      subject,
      `promoteToLongTerm(${projectId})`,
    );
    const result = await runPlan(host, builder.plan(), "apply", options);
    if (result.outcome === "committed") {
      await markPromoted(
        host.workspace,
        new Set([...promoted, ...duplicates].map((p) => p.text)),
        target,
      );
    }
    return {
      ...result,
      promoted,
      duplicates,
      archivedTo: item?.to ?? path.posix.join(THREE_TIER_PATHS.archiveDir, "projects", projectId),
    };
  });
}

/** `existing` with a `## <stamp>` entry appended (the same shape `appendLongTerm` writes). */
function appendEntryText(existing: string, stamp: string, body: string): string {
  const base =
    existing === "" || existing.endsWith("\n\n")
      ? existing
      : existing.endsWith("\n")
        ? `${existing}\n`
        : `${existing}\n\n`;
  return `${base}## ${stamp}\n\n${body.trim()}\n\n`;
}

/** A mid-term project's folder (workspace-relative), after checking it exists. */
async function projectFolder(
  host: LifecycleHost,
  projectId: string,
  hint: string,
): Promise<string> {
  const folder = `${THREE_TIER_PATHS.projectsDir}/${projectId}`;
  if ((await entryKind(workspacePath(host.workspace, folder))) !== "dir") {
    throw new EngramError("FILE_NOT_FOUND", `no mid-term project ${projectId} (${folder})`, {
      hint,
    });
  }
  return folder;
}
