import { readFrontMatter } from "./front-matter.js";

/** Opens a private block: its lines never leave the main scope and are never auto-promoted. */
export const PRIVATE_OPEN = "<!-- engram:private -->";
/** Closes a private block. */
export const PRIVATE_CLOSE = "<!-- /engram:private -->";

const OPEN_RE = /^\s*<!--\s*engram:private\s*-->\s*$/;
const CLOSE_RE = /^\s*<!--\s*\/engram:private\s*-->\s*$/;

/** A 1-based inclusive line range. */
export interface LineRange {
  startLine: number;
  endLine: number;
}

/**
 * True when the file's front matter says `sensitive: true` (or `private: true`): the whole file
 * stays in the main scope and is never auto-promoted. Invalid front matter counts as sensitive, so
 * a typo never leaks a file.
 */
export function isSensitiveFile(text: string): boolean {
  try {
    const { data } = readFrontMatter(text);
    return data.sensitive === true || data.private === true;
  } catch {
    return true;
  }
}

/**
 * The private blocks of `text`: each runs from a `<!-- engram:private -->` line to the matching
 * `<!-- /engram:private -->` line (markers included). A block never closed runs to the end of the
 * file — failing closed, so a forgotten marker hides too much rather than too little.
 */
export function privateRanges(text: string): LineRange[] {
  const lines = text.split("\n");
  const ranges: LineRange[] = [];
  let open = -1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (open < 0 && OPEN_RE.test(line)) open = i;
    else if (open >= 0 && CLOSE_RE.test(line)) {
      ranges.push({ startLine: open + 1, endLine: i + 1 });
      open = -1;
    }
  }
  if (open >= 0) ranges.push({ startLine: open + 1, endLine: lines.length });
  return ranges;
}

/** True when any line of `range` lies in one of `ranges`. */
export function overlapsPrivate(range: LineRange, ranges: readonly LineRange[]): boolean {
  return ranges.some((r) => r.startLine <= range.endLine && range.startLine <= r.endLine);
}

/**
 * `text` without its private blocks (each replaced by nothing), or "" for a sensitive file: what
 * may leave the main scope (group context, promotion).
 */
export function stripPrivate(text: string): string {
  if (isSensitiveFile(text)) return "";
  const ranges = privateRanges(text);
  if (ranges.length === 0) return text;
  const lines = text.split("\n");
  return lines
    .filter((_, i) => !ranges.some((r) => i + 1 >= r.startLine && i + 1 <= r.endLine))
    .join("\n");
}
