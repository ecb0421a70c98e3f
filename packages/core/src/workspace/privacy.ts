import { readFrontMatter } from "./front-matter.js";

/** Opens a private span: its text never leaves the main scope and is never auto-promoted. */
export const PRIVATE_OPEN = "<!-- engram:private -->";
/** Closes a private span. */
export const PRIVATE_CLOSE = "<!-- /engram:private -->";
/** What stands in for a private span in text shown outside the main scope. */
export const REDACTED = "[private]";

/**
 * Opens a sealed private span: the span's own bytes, encrypted with age, follow as one base64 line
 * (see `sealing/spans.ts`). It is a private span like any other.
 */
export const SEALED_PRIVATE_OPEN = "<!-- engram:private sealed -->";

/**
 * Either marker (an opening one may say `sealed`), anywhere in the text (on its own line or
 * inline), spacing and case free.
 */
const MARKER_RE = /<!--\s*(\/?)\s*engram:private(\s+sealed)?\s*-->/gi;

/** A 1-based inclusive line range. */
export interface LineRange {
  startLine: number;
  endLine: number;
}

/** One private span: from its opening marker to the end of its closing one (markers included). */
export interface PrivateSpan extends LineRange {
  /** Offset of the opening marker in the text. */
  start: number;
  /** Offset just past the closing marker (the text's length when the span is never closed). */
  end: number;
  /** False when no closing marker follows: the span runs to the end of the file. */
  closed: boolean;
  /** True when its opening marker says `sealed`: its content is age ciphertext, not text. */
  sealed?: boolean;
}

/**
 * True when the file's front matter says `sensitive: true` (or `private: true`): the whole file
 * stays in the main scope and is never auto-promoted. Invalid front matter counts as sensitive, so
 * a typo never leaks a file.
 */
export function isSensitiveFile(text: string): boolean {
  // Front matter opens on the first line: most files have none, and need no parsing.
  if (!text.startsWith("---") && !text.startsWith("\uFEFF---")) return false;
  try {
    const { data } = readFrontMatter(text);
    return data.sensitive === true || data.private === true;
  } catch {
    return true;
  }
}

/**
 * True for a workspace-relative path that is personal whatever the layout: any file named
 * `MEMORY.md` (the root one, nanobot's `memory/MEMORY.md`, one in an extra folder), or one of
 * `personalFiles` (the layout's long-term file and the user profile).
 */
export function isPersonalPath(path: string, personalFiles: readonly string[] = []): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name === "MEMORY.md" || personalFiles.includes(path);
}

/**
 * The private spans of `text`, wherever their markers stand: on lines of their own, inline on
 * one line, or opening on one line and closing lines later. An opening marker inside an open span
 * and a closing marker with no span open are ignored. A span never closed runs to the end of the
 * text — failing closed, so a forgotten marker hides too much rather than too little
 * ({@link PrivateSpan.closed} is false; see {@link unclosedSpanWarning}).
 */
export function privateSpans(text: string): PrivateSpan[] {
  if (!text.includes("engram:private")) return [];
  const spans: PrivateSpan[] = [];
  let open = -1;
  let sealed = false;
  for (const match of text.matchAll(MARKER_RE)) {
    const closing = match[1] === "/";
    if (!closing && open < 0) {
      open = match.index;
      sealed = match[2] !== undefined;
    } else if (closing && open >= 0) {
      spans.push(span(text, open, match.index + match[0].length, true, sealed));
      open = -1;
    }
  }
  if (open >= 0) spans.push(span(text, open, text.length, false, sealed));
  return spans;
}

function span(
  text: string,
  start: number,
  end: number,
  closed: boolean,
  sealed: boolean,
): PrivateSpan {
  const found: PrivateSpan = {
    start,
    end,
    closed,
    startLine: lineAt(text, start),
    endLine: lineAt(text, end - 1),
  };
  if (sealed) found.sealed = true;
  return found;
}

/** 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * The lines holding any part of a private span (a line with an inline span counts whole). Use
 * {@link redactPrivate} to keep the public words of such lines.
 */
export function privateRanges(text: string): LineRange[] {
  return privateSpans(text).map(({ startLine, endLine }) => ({ startLine, endLine }));
}

/** True when any line of `range` lies in one of `ranges`. */
export function overlapsPrivate(range: LineRange, ranges: readonly LineRange[]): boolean {
  return ranges.some((r) => r.startLine <= range.endLine && range.startLine <= r.endLine);
}

/**
 * `text` with every private span replaced by `mark` ({@link REDACTED} by default) and its line
 * breaks kept, so the result has exactly the lines of `text`, at the same numbers: the public
 * view that may leave the main scope, line for line.
 */
export function redactPrivate(text: string, mark: string = REDACTED): string {
  const spans = privateSpans(text);
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const s of spans) {
    const breaks = text.slice(s.start, s.end).split("\n").length - 1;
    out += `${text.slice(at, s.start)}${mark}${"\n".repeat(breaks)}`;
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * What may leave the main scope (group context, promotion): `text` without its private spans
 * (removed, not marked), lines that held nothing but private text dropped, or "" for a sensitive
 * file.
 */
export function stripPrivate(text: string): string {
  if (isSensitiveFile(text)) return "";
  const spans = privateSpans(text);
  if (spans.length === 0) return text;
  const before = text.split("\n");
  const after = redactPrivate(text, "").split("\n");
  return after
    .filter((line, i) => line.trim() !== "" || (before[i] as string).trim() === "")
    .join("\n");
}

/** A sync warning for a span never closed (private to the end of the file), or undefined. */
export function unclosedSpanWarning(
  path: string,
  spans: readonly PrivateSpan[],
): string | undefined {
  const open = spans.find((s) => !s.closed);
  if (!open) return undefined;
  return `${path}:${open.startLine}: a private span (${PRIVATE_OPEN}) is never closed, so everything from there to the end of the file is private; add ${PRIVATE_CLOSE} where it should end`;
}
