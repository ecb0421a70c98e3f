import { readFile } from "node:fs/promises";
import path from "node:path";
import { recoverLifecycle } from "../lifecycle/apply.js";
import { hashOrNull, workspacePath } from "../lifecycle/files.js";
import {
  hostAnalyzer,
  hostNow,
  type LifecycleHost,
  type LifecycleTimeOptions,
} from "../lifecycle/host.js";
import { newApplyId } from "../lifecycle/journal.js";
import { PlanBuilder } from "../lifecycle/plan.js";
import { promoteTarget } from "../lifecycle/promote.js";
import type { LanguageModel } from "../model/language-model.js";
import { localDate, localTime } from "../workspace/clock.js";
import { resolveLayout, THREE_TIER_PATHS } from "../workspace/presets.js";
import {
  type ArchiveReason,
  type ArchiveRecord,
  formatArchive,
  readTombstones,
} from "./archive.js";
import { formatRef, overlaps } from "./citations.js";
import { type CuratedFile, readCurated } from "./curated.js";
import { duplicateMerges, type KeptApart, promotionAdds } from "./deterministic.js";
import { unifiedDiff } from "./diff.js";
import { editText, type LineEdit, type RemovedLines } from "./edit.js";
import { type AffectedLines, recallGuard } from "./guard.js";
import { ARCHIVE_DIR, archivePath, reportPath, STATE_FILE } from "./paths.js";
import { type ModelProposal, proposeWithModel } from "./propose.js";
import { formatReport } from "./report.js";
import { linesHash, readNewSources, type SourceFile } from "./sources.js";
import { type ConsolidationState, formatState, readState } from "./state.js";
import type {
  ConsolidationPlan,
  Duplicate,
  NewMaterial,
  Operation,
  PlannedOperation,
  Refusal,
  TokenSpend,
} from "./types.js";
import { verifyOperations } from "./verify.js";

/** Options of a consolidation plan (and apply). */
export interface ConsolidateOptions extends LifecycleTimeOptions {
  /**
   * The model that proposes operations. Absent or null: the deterministic mode (duplicates
   * merged, recalled and important notes promoted).
   */
  model?: LanguageModel | null;
  /** Most tokens the pass may spend with the model (default `consolidation.maxTokens`). */
  maxTokens?: number;
  /**
   * Leave out operations the recall guard refuses (listed as refused) instead of refusing the
   * whole apply. The scheduled maintenance runs with this.
   */
  skipUnsafe?: boolean;
  signal?: AbortSignal;
}

const LONG_TERM_TITLE = "# Long-term Memory\n";
const ARCHIVE_REASON: Record<string, ArchiveReason> = {
  UPDATE: "updated",
  SUPERSEDE: "superseded",
  MERGE: "merged",
};

/**
 * Plan a consolidation pass: read what is new since the last pass and long-term memory, propose
 * operations (the model's, or the deterministic ones), check every one (see
 * {@link verifyOperations}), work out the new text of every file touched, the lines archived, the
 * report, and run the recall guard. Nothing is written (an interrupted apply is finished first).
 */
export async function planConsolidation(
  host: LifecycleHost,
  options: ConsolidateOptions = {},
): Promise<ConsolidationPlan> {
  await recoverLifecycle(host);
  const ws = host.workspace;
  const cfg = host.config.consolidation;
  const now = hostNow(host, options);
  const date = localDate(now);
  const time = localTime(now);
  const passId = newApplyId(now);
  const state = await readState(ws);
  const sources = await readNewSources(host, state, cfg);
  const curatedList = await readCurated(host);
  const curated = new Map(curatedList.map((f) => [f.path, f]));
  const defaultFile = cfg.file ?? promoteTarget(host);
  const layout = resolveLayout(host.config);
  const isLog = (p: string) => {
    const dir = path.posix.dirname(p);
    return (
      /\.jsonl$/.test(p) ||
      (/^\d{4}-\d{2}-\d{2}\.md$/.test(path.posix.basename(p)) &&
        (dir === layout.dailyLogDir || dir === `${THREE_TIER_PATHS.archiveDir}/daily`))
    );
  };

  let proposal: ModelProposal | null = null;
  const proposed: Operation[] = [];
  let keptApart: KeptApart[] = [];
  if (cfg.merge) {
    const merges = await duplicateMerges(host, curatedList);
    proposed.push(...merges.ops);
    keptApart = merges.keptApart;
  }
  if (options.model) {
    proposal = await proposeWithModel(options.model, sources, curatedList, {
      today: date,
      defaultFile,
      includePrivate: cfg.includePrivate,
      contextTokens: cfg.contextTokens,
      maxOutputTokens: cfg.maxOutputTokens,
      analyzer: hostAnalyzer(host),
      ...((options.maxTokens ?? cfg.maxTokens)
        ? { budget: options.maxTokens ?? cfg.maxTokens }
        : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    proposed.push(...proposal.ops);
  } else if (cfg.promote) {
    proposed.push(...(await promotionAdds(host, sources, defaultFile, now)));
  }
  const verdict = await verifyOperations(proposed, {
    host,
    curated,
    sources: new Map(sources.map((s) => [s.path, s])),
    ...(proposal ? { shown: proposal.shown } : {}),
    defaultFile,
    tombstones: await readTombstones(ws),
    isLog,
  });
  const refused: Refusal[] = [...(proposal?.invalid ?? []), ...verdict.refused];

  let accepted = verdict.accepted;
  let built = await build(ws, accepted, curated, defaultFile, { date, time, passId });
  let guard = await recallGuard(host, built.affected, built.contents);
  if (guard.failed.length && options.skipUnsafe) {
    const unsafe = new Set(guard.failed.map((f) => f.opId));
    for (const [i, op] of accepted.entries()) {
      if (!unsafe.has(`op-${i + 1}`)) continue;
      const lost = guard.failed.filter((f) => f.opId === `op-${i + 1}`);
      refused.push({
        operation: op,
        code: "recall-guard",
        why: `earlier searches would no longer find what they found: ${lost.map((f) => `"${f.query}"`).join(", ")}`,
        detail: lost.map((f) => f.query),
      });
    }
    accepted = accepted.filter((_, i) => !unsafe.has(`op-${i + 1}`));
    built = await build(ws, accepted, curated, defaultFile, { date, time, passId });
    guard = await recallGuard(host, built.affected, built.contents);
  }

  const tokens: TokenSpend = proposal?.tokens ?? {
    input: 0,
    output: 0,
    calls: 0,
    exhausted: false,
  };
  const newMaterial: NewMaterial[] = sources
    .filter((s) => s.from <= s.lines.length)
    .map((s) => ({
      path: s.path,
      startLine: s.from,
      endLine: s.lines.length,
      privateLines: [...s.privateLines].filter((n) => n >= s.from).length,
      processed: !proposal?.pending.has(s.key),
    }));
  const next = nextState(state, sources, proposal, now);

  const plan: ConsolidationPlan = {
    passId,
    createdAt: now.toISOString(),
    mode: options.model ? "model" : "deterministic",
    ...(options.model ? { model: { id: options.model.id, model: options.model.model } } : {}),
    operations: built.operations,
    refused,
    duplicates: verdict.duplicates as Duplicate[],
    keptApart,
    newMaterial,
    diffs: [],
    guard,
    tokens,
    ...(proposal?.error ? { modelError: proposal.error } : {}),
    report: reportPath(date),
    basis: {},
    lifecycle: { createdAt: now.toISOString(), items: [], steps: [], contents: {}, skipped: [] },
  };

  const stateText = formatState(next);
  const changed = built.contents.size > 0 || stateText !== formatState(state);
  return assemble(host, plan, built, {
    now,
    state: formatState({ ...next, passes: state.passes + 1, lastPassAt: now.toISOString() }),
    stateChanged: changed,
  });
}

/**
 * Fill in what a plan's apply writes — the long-term files and the archive (`built`), the day's
 * report, the pass state — with a diff per file, the basis hashes and the journal steps.
 */
export async function assemble(
  host: LifecycleHost,
  plan: ConsolidationPlan,
  built: Pick<Built, "contents">,
  pass: { now: Date; state: string | null; stateChanged: boolean },
): Promise<ConsolidationPlan> {
  const ws = host.workspace;
  const { now } = pass;
  const date = localDate(now);
  const time = localTime(now);
  const passId = plan.passId;
  plan.diffs = [];
  plan.basis = {};
  // What the apply writes (the archive is in `built.contents` already).
  const writes = new Map<string, string>(built.contents as Map<string, string>);
  const worthReporting =
    plan.operations.length > 0 ||
    plan.refused.length > 0 ||
    plan.duplicates.some((d) => d.operation.origin !== "recall") ||
    plan.newMaterial.some((m) => m.processed);
  if (worthReporting) {
    writes.set(
      plan.report,
      formatReport(await readText(ws, plan.report), { date, time, passId, plan }),
    );
  }
  if ((writes.size > 0 || pass.stateChanged) && pass.state !== null) {
    writes.set(STATE_FILE, pass.state);
  }
  const builder = new PlanBuilder(ws, now);
  // The archive first: a crash between two steps never leaves a removed line only in `.engram/`.
  const order = (p: string) =>
    p.startsWith(ARCHIVE_DIR) ? 0 : p === plan.report || p === STATE_FILE ? 2 : 1;
  const ordered = [...writes].sort(([a], [b]) => order(a) - order(b) || (a < b ? -1 : 1));
  for (const [file, text] of ordered) {
    const before = await readText(ws, file);
    plan.basis[file] = await hashOrNull(workspacePath(ws, file));
    await builder.put(file, text);
    if (before !== text)
      plan.diffs.push({ path: file, diff: await unifiedDiff(file, before, text) });
    builder.note({
      rule: "consolidate",
      action: "archive",
      kind: "file",
      from: file,
      to: file,
      reason: `consolidation pass ${passId}`,
    });
  }
  plan.lifecycle = builder.plan();
  return plan;
}

export interface Built {
  operations: PlannedOperation[];
  /** New text of every long-term file changed. */
  contents: Map<string, string | null>;
  archived: ArchiveRecord[];
  affected: AffectedLines[];
}

/** The file edits of the accepted operations, and the lines they archive. */
export async function build(
  ws: string,
  accepted: readonly Operation[],
  curated: ReadonlyMap<string, CuratedFile>,
  defaultFile: string,
  pass: { date: string; time: string; passId: string },
): Promise<Built> {
  const archiveFile = archivePath(pass.date);
  const operations: PlannedOperation[] = accepted.map((op, i) => ({
    ...op,
    id: (op as Partial<PlannedOperation>).id ?? `op-${i + 1}`,
  }));
  const edits = new Map<string, LineEdit[]>();
  const push = (file: string, e: LineEdit) => {
    const list = edits.get(file) ?? [];
    list.push(e);
    edits.set(file, list);
  };
  for (const op of operations) {
    const [first, ...rest] = op.targets;
    switch (op.op) {
      case "ADD":
        push(op.file ?? defaultFile, {
          kind: "add",
          id: op.id,
          text: op.text,
          ...(op.section ? { section: op.section } : {}),
        });
        break;
      case "UPDATE":
      case "SUPERSEDE":
      case "MERGE":
        if (!first) break;
        push(first.path, {
          kind: "replace",
          id: op.id,
          startLine: first.startLine,
          endLine: first.endLine,
          text: op.text,
          ...(op.op === "SUPERSEDE"
            ? { note: `<!-- supersedes an entry archived in ${archiveFile} -->` }
            : {}),
        });
        for (const t of rest)
          push(t.path, { kind: "delete", id: op.id, startLine: t.startLine, endLine: t.endLine });
        break;
      case "SUMMARY":
        break;
    }
  }
  const contents = new Map<string, string | null>();
  const removed: RemovedLines[] = [];
  const placedAt = new Map<string, { path: string; startLine: number; endLine: number }>();
  for (const [file, list] of edits) {
    const known = curated.get(file);
    const before = known?.text ?? (await readText(ws, file)) ?? LONG_TERM_TITLE;
    const stamp = `${pass.date} ${pass.time}`;
    const outcome = editText(before, list, stamp, file);
    contents.set(file, outcome.text);
    removed.push(...outcome.removed);
    for (const [id, at] of outcome.placed) placedAt.set(id, { path: file, ...at });
  }
  const archived: ArchiveRecord[] = [];
  const affected: AffectedLines[] = [];
  for (const r of removed) {
    const op = operations.find((o) => o.id === r.id) as PlannedOperation;
    const file = curated.get(r.from.path);
    const isPrivate =
      file?.sensitive === true ||
      (file?.privateRanges ?? []).some((p) => overlaps({ path: r.from.path, ...p }, r.from));
    const placed = placedAt.get(op.id);
    archived.push({
      reason: ARCHIVE_REASON[op.op] ?? "updated",
      from: r.from,
      lines: r.lines,
      pass: pass.passId,
      time: pass.time,
      why: r.heading
        ? "its section became empty"
        : op.reason || `${op.op.toLowerCase()} by consolidation`,
      ...(r.heading
        ? {}
        : op.op === "MERGE"
          ? placed
            ? { replacedBy: formatRef(placed) }
            : {}
          : { replacedBy: op.text }),
      private: isPrivate,
    });
    if (!r.heading) {
      // A superseded entry's content is the old fact: only the archive still holds it.
      affected.push({
        ref: r.from,
        text: r.lines.join("\n"),
        opId: op.id,
        ...(op.op === "SUPERSEDE" ? {} : { replacement: op.text }),
      });
    }
  }
  if (archived.length) {
    const existing = await readText(ws, archiveFile);
    contents.set(
      archiveFile,
      formatArchive(existing, `Consolidation archive ${pass.date}`, archived),
    );
  }
  for (const op of operations) {
    const placed = placedAt.get(op.id);
    if (placed) op.placed = placed;
    if (op.op === "UPDATE" || op.op === "SUPERSEDE" || op.op === "MERGE")
      op.archivedTo = archiveFile;
  }
  return { operations, contents, archived, affected };
}

/** The watermark after this pass: every source read to its end, except lines the model was not sent. */
function nextState(
  state: ConsolidationState,
  sources: readonly SourceFile[],
  proposal: ModelProposal | null,
  _now: Date,
): ConsolidationState {
  const seen = { ...state.seen };
  for (const s of sources) {
    if (!proposal?.pending.has(s.key)) {
      seen[s.key] = s.seen;
      continue;
    }
    const readTo = proposal.readTo.get(s.key);
    if (readTo !== undefined) {
      // Partly read: size and mtime unknown, so the next pass reads the file and resumes.
      seen[s.key] = { lines: readTo, hash: linesHash(s.lines, readTo), size: -1, mtimeMs: -1 };
    }
  }
  return { ...state, seen };
}

async function readText(ws: string, rel: string): Promise<string | null> {
  return readFile(workspacePath(ws, rel), "utf8").catch(() => null);
}
