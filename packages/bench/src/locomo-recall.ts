import type { LocomoQuestion, LocomoTurn } from "./locomo-data.js";

/**
 * A turn as one daily-log line: `- [D1:3] Caroline: text`, with the caption of a shared image
 * appended (`[image: …]`). Line breaks inside the text become spaces, so a line is a turn.
 */
export function turnLine(turn: LocomoTurn): string {
  const caption = turn.caption ? ` [image: ${turn.caption}]` : "";
  return `- [${turn.id}] ${turn.speaker}: ${turn.text}${caption}`.replace(/\s*[\r\n]+\s*/g, " ");
}

const MARKER = /^\s*- \[(D\d+:\d+)\] /;

/** Dialog ids of the turn lines among `lines` (only a marker that opens a line counts). */
export function turnIdsIn(lines: readonly string[]): string[] {
  const ids: string[] = [];
  for (const line of lines) {
    const id = MARKER.exec(line)?.[1];
    if (id) ids.push(id);
  }
  return ids;
}

/** Whether the turns shown answer a question. */
export interface EvidenceHit {
  /** At least one evidence turn was shown. */
  any: boolean;
  /** Every evidence turn was shown (false when some evidence id names no turn). */
  all: boolean;
}

/**
 * Score one question against the turns the results showed. Evidence ids that name no turn of
 * the conversation (`known`) can never be shown: they count as misses, never dropped.
 */
export function scoreEvidence(
  question: Pick<LocomoQuestion, "evidence">,
  shown: ReadonlySet<string>,
): EvidenceHit {
  const found = question.evidence.filter((id) => shown.has(id)).length;
  return { any: found > 0, all: found > 0 && found === question.evidence.length };
}

/** Recall counts for a group of questions. */
export interface RecallCounts {
  questions: number;
  /** Questions with at least one evidence turn shown. */
  any: number;
  /** Questions with every evidence turn shown. */
  all: number;
}

/** Shares (0–1) from counts; 0 for an empty group. */
export function recallShares(c: RecallCounts): { any: number; all: number } {
  return c.questions ? { any: c.any / c.questions, all: c.all / c.questions } : { any: 0, all: 0 };
}
