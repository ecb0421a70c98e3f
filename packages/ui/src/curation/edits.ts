import {
  EngramError,
  type ForgetResult,
  forget,
  type LineRef,
  type Memory,
  type UpdateResult,
  updateMemory,
} from "@engram/core";

/** Lines of a memory file, 1-based and inclusive. */
export type LineTarget = LineRef;

/**
 * `engram forget path:lines --reason …`: the lines leave the file for the archive, with the
 * reason (undone by core's `undoForget`). The page always asks why, so a blank reason is refused.
 */
export function forgetLines(
  memory: Memory,
  target: LineTarget,
  reason: string,
): Promise<ForgetResult> {
  return forget(memory, target, { reason: requireReason(reason) });
}

/**
 * `engram update path:lines "text" --reason …`: lines of long-term memory replaced, the old text
 * archived with the reason (undone by core's `undoUpdate`); a blank reason is refused.
 */
export function updateLines(
  memory: Memory,
  target: LineTarget,
  text: string,
  reason: string,
): Promise<UpdateResult> {
  return updateMemory(memory, target, text, { reason: requireReason(reason) });
}

function requireReason(reason: string): string {
  if (!reason.trim()) {
    throw new EngramError("INVALID_ARGUMENT", "say why: a reason is kept with the archived lines", {
      hint: "fill in the reason",
    });
  }
  return reason;
}
