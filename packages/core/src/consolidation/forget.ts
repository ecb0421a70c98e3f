import { readFile } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import type { ApplyOptions, ApplyResult } from "../lifecycle/apply.js";
import { undoLastApply } from "../lifecycle/apply.js";
import { entryKind, workspacePath } from "../lifecycle/files.js";
import { hostTierOf, type LifecycleHost } from "../lifecycle/host.js";
import { resolveLayout, THREE_TIER_PATHS } from "../workspace/presets.js";
import { readTexts } from "../workspace/read-texts.js";
import { scanWorkspace } from "../workspace/scan.js";
import { formatRef, type LineRef } from "./citations.js";
import { entriesOf } from "./curated.js";
import type { LineEdit } from "./edit.js";
import { plainText } from "./facts.js";
import { isConsolidationPath } from "./paths.js";
import { runUserEdit, type UserEditResult } from "./user-edit.js";

/** Options of {@link forget}. */
export interface ForgetOptions extends ApplyOptions {
  /** Why (kept with the archived lines). */
  reason?: string;
  /** Allow striking lines from a daily log (logs are otherwise never rewritten). */
  fromLog?: boolean;
  /** Only say what would be forgotten. */
  dryRun?: boolean;
}

/** What {@link forget} did (or, with `dryRun`, would do). */
export interface ForgetResult extends Partial<UserEditResult> {
  forgotten: Array<LineRef & { text: string }>;
  dryRun: boolean;
}

/** Most entries one query may forget (a broader query is refused: name the lines). */
const MAX_QUERY_MATCHES = 20;

/**
 * Forget memory: lines `path:start-end`, or every entry whose text contains `query` (case and
 * Unicode width ignored). The lines leave their file, go to the day's archive
 * (`memory/archive/consolidation/`) with the reason and a `forgotten` record — a tombstone:
 * consolidation never adds the text back — and leave the index at once. Daily logs are touched
 * only with `fromLog`; the archive and consolidation's own files never. Undo with
 * {@link undoForget}.
 *
 * @throws EngramError `INVALID_ARGUMENT` (no such lines, a log without `fromLog`, a query that
 * matches nothing or too much), `PATH_NOT_ALLOWED`, `FILE_NOT_FOUND`.
 */
export async function forget(
  host: LifecycleHost,
  target: LineRef | { query: string },
  options: ForgetOptions = {},
): Promise<ForgetResult> {
  const texts = new Map<string, string>();
  const found: Array<LineRef & { text: string }> = [];
  if ("query" in target) {
    found.push(...(await byQuery(host, target.query, options.fromLog === true, texts)));
  } else {
    const text = await editableText(host, target.path, options.fromLog === true);
    texts.set(target.path, text);
    const lines = text.split("\n");
    if (text.endsWith("\n")) lines.pop();
    if (
      target.startLine < 1 ||
      target.endLine > lines.length ||
      target.endLine < target.startLine
    ) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `${formatRef(target)} does not exist (the file has ${lines.length} lines)`,
        {
          hint: "cite lines as a search result shows them, e.g. MEMORY.md:12-14",
        },
      );
    }
    const body = lines.slice(target.startLine - 1, target.endLine).join("\n");
    if (!body.trim()) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `${formatRef(target)} is blank: nothing to forget`,
        {
          hint: "name the lines that hold the text",
        },
      );
    }
    found.push({ ...target, text: body });
  }
  if (options.dryRun) return { forgotten: found, dryRun: true };
  const edits = new Map<string, LineEdit[]>();
  found.forEach((f, i) => {
    const list = edits.get(f.path) ?? [];
    list.push({
      kind: "delete",
      id: `forget-${i + 1}`,
      startLine: f.startLine,
      endLine: f.endLine,
    });
    edits.set(f.path, list);
  });
  const result = await runUserEdit(
    host,
    {
      rule: "forget",
      reason: "forgotten",
      why: options.reason?.trim() || "forgotten on request",
      edits,
      texts,
    },
    options,
  );
  return { ...result, forgotten: found, dryRun: false };
}

/** Undo the last `forget` (refused when a newer change came after it). */
export function undoForget(host: LifecycleHost, options: ApplyOptions = {}): Promise<ApplyResult> {
  return undoLastApply(host, options, { rules: ["forget"], what: "forget" });
}

/** The text of a file forget (or update) may edit, after checking it may. */
export async function editableText(
  host: LifecycleHost,
  rel: string,
  allowLogs: boolean,
): Promise<string> {
  const abs = workspacePath(host.workspace, rel);
  if (!/\.md$/i.test(rel) || isConsolidationPath(rel) || hostTierOf(host)(rel) === "archive") {
    throw new EngramError("PATH_NOT_ALLOWED", `${rel} is not memory engram edits`, {
      hint: "archived and consolidation files keep history; edit them by hand if you must",
    });
  }
  if (isLogPath(host, rel) && !allowLogs) {
    throw new EngramError("INVALID_ARGUMENT", `${rel} is a daily log; logs are never rewritten`, {
      hint: "pass --from-log (fromLog: true) to strike lines from a log",
    });
  }
  if ((await entryKind(abs)) !== "file") {
    throw new EngramError("FILE_NOT_FOUND", `no memory file ${rel}`, {
      hint: "cite a path as search results show it, e.g. MEMORY.md",
    });
  }
  return readFile(abs, "utf8");
}

/** True for a daily log of the layout (live or archived). */
export function isLogPath(host: LifecycleHost, rel: string): boolean {
  const dir = path.posix.dirname(rel);
  return (
    /^\d{4}-\d{2}-\d{2}\.md$/.test(path.posix.basename(rel)) &&
    (dir === resolveLayout(host.config).dailyLogDir ||
      dir === `${THREE_TIER_PATHS.archiveDir}/daily`)
  );
}

async function byQuery(
  host: LifecycleHost,
  query: string,
  fromLog: boolean,
  texts: Map<string, string>,
): Promise<Array<LineRef & { text: string }>> {
  const wanted = plainText(query).toLowerCase().replace(/\s+/g, " ").trim();
  if (!wanted) {
    throw new EngramError("INVALID_ARGUMENT", "the query is empty", {
      hint: 'pass the text to forget, e.g. "hunter2"',
    });
  }
  const tierOf = hostTierOf(host);
  const { files } = await scanWorkspace({ workspace: host.workspace });
  const out: Array<LineRef & { text: string }> = [];
  const searched = files.filter(
    (f) =>
      !f.path.startsWith("/") &&
      !isConsolidationPath(f.path) &&
      tierOf(f.path) !== "archive" &&
      (fromLog || !isLogPath(host, f.path)),
  );
  for await (const [f, { text }] of readTexts(searched)) {
    let hit = false;
    for (const e of entriesOf(text)) {
      if (!plainText(e.text).toLowerCase().replace(/\s+/g, " ").includes(wanted)) continue;
      out.push({ path: f.path, startLine: e.startLine, endLine: e.endLine, text: e.text });
      hit = true;
    }
    if (hit) texts.set(f.path, text);
  }
  if (out.length === 0) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `no memory entry contains "${query}"${fromLog ? "" : " (daily logs not searched)"}`,
      {
        hint: fromLog
          ? "search for it (engram search) and forget the lines it cites"
          : "pass --from-log to include daily logs, or forget the lines a search cites",
      },
    );
  }
  if (out.length > MAX_QUERY_MATCHES) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `"${query}" matches ${out.length} entries; forget is limited to ${MAX_QUERY_MATCHES} at once`,
      {
        hint: "use a more specific query, or name the lines (path:start-end)",
      },
    );
  }
  return out;
}
