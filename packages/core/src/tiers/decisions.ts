import { EngramError } from "../errors.js";
import { localDate } from "../workspace/clock.js";
import { readFrontMatter, writeFrontMatter } from "../workspace/front-matter.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { THREE_TIER_PATHS } from "../workspace/presets.js";
import { readTextIfExists, writeText } from "./files.js";
import type { TierHost } from "./host.js";
import { assertText, assertTitle, slugify } from "./names.js";

/** A decision to record (an architecture decision record, in the seed's words). */
export interface DecisionInput {
  title: string;
  /** Why a decision was needed. */
  context: string;
  /** What was decided. */
  decision: string;
  /** What follows from it. */
  consequences?: string;
  /**
   * An earlier decision this one replaces (its file name or workspace-relative path under
   * `decisions/`): it is marked `status: superseded` with `superseded_by` pointing here.
   */
  supersedes?: string;
}

/** Where a decision was recorded. */
export interface DecisionRecord {
  /** Workspace-relative path: `memory/long-term/decisions/YYYY-MM-DD_<slug>.md`. */
  path: string;
  date: string;
  title: string;
  /** Path of the decision this one superseded, when any. */
  supersedes?: string;
}

const DIR = THREE_TIER_PATHS.decisionsDir;
const FILE_RE = /^\d{4}-\d{2}-\d{2}_[^/\\]+\.md$/u;

/**
 * Writes a decision record to `memory/long-term/decisions/YYYY-MM-DD_<slug>.md` (the clock's
 * local date; the slug keeps CJK letters; `-2`, `-3`, … when that name is taken) with front matter
 * `status: accepted`, `date`, `title`, and `## Context`, `## Decision`, `## Consequences`
 * sections. Never overwrites a file.
 *
 * @throws EngramError `INVALID_ARGUMENT` for a missing field; `FILE_NOT_FOUND` when `supersedes`
 * names no decision.
 */
export async function recordDecision(
  host: TierHost,
  input: DecisionInput,
): Promise<DecisionRecord> {
  if (input === null || typeof input !== "object") {
    throw new EngramError("INVALID_ARGUMENT", "decision must be an object", {
      hint: "pass { title, context, decision, consequences? }",
    });
  }
  const title = assertTitle("decision title", input.title);
  const context = assertText("decision context", input.context);
  const decision = assertText("decision", input.decision);
  const consequences =
    input.consequences === undefined ? undefined : assertText("consequences", input.consequences);
  const old = input.supersedes === undefined ? undefined : decisionPath(input.supersedes);
  const date = localDate(host.clock.now());
  const slug = slugify(title, "decision");

  const record = await withWorkspaceLock(host.workspace, `tiers:${DIR}`, async () => {
    const oldText = old === undefined ? null : await readTextIfExists(host.workspace, old);
    if (old !== undefined && oldText === null) {
      throw new EngramError("FILE_NOT_FOUND", `decision ${old} does not exist`, {
        hint: `pass the file name of a decision in ${DIR}/`,
      });
    }
    let rel = `${DIR}/${date}_${slug}.md`;
    for (let n = 2; (await readTextIfExists(host.workspace, rel)) !== null; n++) {
      rel = `${DIR}/${date}_${slug}-${n}.md`;
    }
    const sections = [
      `# ${title}`,
      `## Context\n\n${context}`,
      `## Decision\n\n${decision}`,
      ...(consequences ? [`## Consequences\n\n${consequences}`] : []),
    ];
    const data = {
      status: "accepted",
      date,
      title,
      ...(old ? { supersedes: old.slice(DIR.length + 1) } : {}),
    };
    await writeText(host.workspace, rel, writeFrontMatter(data, `\n${sections.join("\n\n")}\n`));
    if (old !== undefined && oldText !== null) {
      const { data: oldData, body } = readFrontMatter(oldText, old);
      const next = { ...oldData, status: "superseded", superseded_by: rel.slice(DIR.length + 1) };
      await writeText(host.workspace, old, writeFrontMatter(next, body));
    }
    return { path: rel, date, title, ...(old ? { supersedes: old } : {}) };
  });
  host.noteWritten(record.path, ...(old ? [old] : []));
  return record;
}

/** Workspace-relative path of a decision named by file name or path; refuses anything else. */
function decisionPath(name: unknown): string {
  const file =
    typeof name === "string" && name.startsWith(`${DIR}/`) ? name.slice(DIR.length + 1) : name;
  if (typeof file !== "string" || !FILE_RE.test(file) || file.includes("..")) {
    throw new EngramError("INVALID_ARGUMENT", `${JSON.stringify(name)} does not name a decision`, {
      hint: `pass a file name such as "2026-01-02_use-sqlite.md" from ${DIR}/`,
    });
  }
  return `${DIR}/${file}`;
}
