import { EngramError } from "../errors.js";

/** A 1-based inclusive stretch of a workspace file's lines: `path:start-end`. */
export interface LineRef {
  path: string;
  startLine: number;
  endLine: number;
}

const REF_RE = /^(.+?):(\d+)(?:-(\d+))?$/;

/** `path:start-end` (or `path:n` for one line). */
export function formatRef(ref: LineRef): string {
  return ref.startLine === ref.endLine
    ? `${ref.path}:${ref.startLine}`
    : `${ref.path}:${ref.startLine}-${ref.endLine}`;
}

/** Parse `path:start-end` or `path:n`; null when `text` is not one. */
export function tryParseRef(text: string): LineRef | null {
  const m = REF_RE.exec(text.trim());
  if (!m) return null;
  const startLine = Number(m[2]);
  const endLine = m[3] === undefined ? startLine : Number(m[3]);
  if (!Number.isInteger(startLine) || startLine < 1 || endLine < startLine) return null;
  return { path: (m[1] as string).replace(/^\.\//, ""), startLine, endLine };
}

/**
 * Parse `path:start-end` or `path:n`.
 *
 * @throws EngramError `INVALID_ARGUMENT` naming the expected form.
 */
export function parseRef(text: string, what = "line range"): LineRef {
  const ref = tryParseRef(text);
  if (!ref) {
    throw new EngramError("INVALID_ARGUMENT", `${what} "${text}" is not path:start-end`, {
      hint: "write it as a search result cites it, e.g. MEMORY.md:12-14 or MEMORY.md:12",
    });
  }
  return ref;
}

/** True when the two stretches share a line of the same file. */
export function overlaps(a: LineRef, b: LineRef): boolean {
  return a.path === b.path && a.startLine <= b.endLine && b.startLine <= a.endLine;
}
