import { readFile } from "node:fs/promises";
import { EngramError } from "../errors.js";
import { type ApplyOptions, type ApplyResult, runPlan } from "../lifecycle/apply.js";
import { workspacePath } from "../lifecycle/files.js";
import { hostNow, type LifecycleHost } from "../lifecycle/host.js";
import { recoverJournal, withLifecycleLock } from "../lifecycle/journal.js";
import { PlanBuilder } from "../lifecycle/plan.js";
import { localDate, localTime } from "../workspace/clock.js";
import { isSensitiveFile, privateRanges } from "../workspace/privacy.js";
import { type ArchiveReason, type ArchiveRecord, formatArchive } from "./archive.js";
import { overlaps } from "./citations.js";
import { editText, type LineEdit, type RemovedLines } from "./edit.js";
import { archivePath } from "./paths.js";

/** What {@link runUserEdit} did. */
export interface UserEditResult extends Omit<ApplyResult, "items"> {
  /** Lines taken out of the files, verbatim (headings left empty included). */
  removed: RemovedLines[];
  /** The archive file that keeps them. */
  archivedTo: string;
}

/**
 * Apply a person's (or agent's) edit of memory files through the lifecycle journal: the files'
 * new text, and every removed line archived with `reason`, in one undoable apply named `rule`.
 * Holds the lifecycle lock; the files must not have changed since `texts` were read.
 */
export async function runUserEdit(
  host: LifecycleHost,
  input: {
    rule: "forget" | "update";
    reason: ArchiveReason;
    why: string;
    edits: ReadonlyMap<string, LineEdit[]>;
    /** The files' text the edits were made against (a file that changed since is a conflict). */
    texts: ReadonlyMap<string, string>;
    replacedBy?: string;
  },
  options: ApplyOptions = {},
): Promise<UserEditResult> {
  return withLifecycleLock(host, async () => {
    await recoverJournal(host);
    const ws = host.workspace;
    const now = hostNow(host, options);
    const date = localDate(now);
    const time = localTime(now);
    const archiveFile = archivePath(date);
    const builder = new PlanBuilder(ws, now);
    const removed: RemovedLines[] = [];
    const records: ArchiveRecord[] = [];
    const outputs: Array<[string, string]> = [];
    for (const [file, edits] of input.edits) {
      const text = await readFile(workspacePath(ws, file), "utf8");
      if (text !== input.texts.get(file)) {
        throw new EngramError("LIFECYCLE_CONFLICT", `${file} changed while the edit was prepared`, {
          hint: "run the command again: it reads the file afresh",
        });
      }
      const outcome = editText(text, edits, `${date} ${time}`, file);
      const sensitive = isSensitiveFile(text);
      const ranges = privateRanges(text);
      for (const r of outcome.removed) {
        removed.push(r);
        records.push({
          reason: input.reason,
          from: r.from,
          lines: r.lines,
          pass: `${input.rule} ${date} ${time}`,
          time,
          why: r.heading ? "its section became empty" : input.why,
          ...(input.replacedBy && !r.heading ? { replacedBy: input.replacedBy } : {}),
          private: sensitive || ranges.some((p) => overlaps({ path: file, ...p }, r.from)),
        });
      }
      outputs.push([file, outcome.text]);
    }
    // The archive first: a crash between two steps never leaves a removed line only in `.engram/`.
    if (records.length) {
      const existing = await readFile(workspacePath(ws, archiveFile), "utf8").catch(() => null);
      await builder.put(
        archiveFile,
        formatArchive(existing, `Consolidation archive ${date}`, records),
      );
    }
    for (const [file, text] of outputs) {
      await builder.put(file, text);
      builder.note({
        rule: input.rule,
        action: "archive",
        kind: "file",
        from: file,
        to: archiveFile,
        reason: input.why,
      });
    }
    const { items: _items, ...outcome } = await runPlan(host, builder.plan(), "apply", options);
    return { ...outcome, removed, archivedTo: archiveFile };
  });
}
