import type { LineRef } from "./citations.js";

/** One change to one file, in original line numbers. */
export type LineEdit =
  | {
      kind: "replace";
      id: string;
      startLine: number;
      endLine: number;
      text: string;
      note?: string;
      /** Write `text` as given (default: as the replaced entry was written, list marker kept). */
      raw?: boolean;
    }
  | { kind: "delete"; id: string; startLine: number; endLine: number }
  | { kind: "add"; id: string; text: string; section?: string };

/** Lines an edit took out of a file, verbatim, for the archive. */
export interface RemovedLines {
  /** The edit that removed them. */
  id: string;
  from: LineRef;
  lines: string[];
  /** True for a heading removed because the edit left its section empty. */
  heading?: boolean;
}

/** The new text of a file, where each edit's text landed, and what was removed. */
export interface EditOutcome {
  text: string;
  /** Edit id → lines of the new text it wrote (replace, add). */
  placed: Map<string, { startLine: number; endLine: number }>;
  removed: RemovedLines[];
}

const ITEM_RE = /^(\s*)([-*+]|\d+[.)])(\s+)/;
const HEADING_RE = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

/** `text` as a list item: kept when it is one already, else `- ` with continuation lines indented. */
export function asItem(text: string, prefix = "- "): string[] {
  const lines = text.trim().split("\n");
  const first = lines[0] as string;
  if (ITEM_RE.test(first)) return lines;
  const indent = " ".repeat(prefix.length);
  return [
    `${prefix}${first}`,
    ...lines.slice(1).map((l) => (l.trim() ? `${indent}${l.trim()}` : "")),
  ];
}

/** The replacement lines of an entry: the old entry's list marker (and indent) kept. */
function replacementLines(oldFirst: string, text: string): string[] {
  const m = ITEM_RE.exec(oldFirst);
  const stripped = text.trim().replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "");
  if (!m) return stripped.split("\n");
  return asItem(stripped, `${m[1]}${m[2]}${m[3]}`);
}

/**
 * Apply `edits` to `text` (a file's current content). Line numbers of every edit refer to `text`
 * as given; edits must not overlap (the caller checks). Replaced and deleted lines are returned
 * verbatim in `removed`; a heading whose section the edits emptied is removed (and returned) too,
 * and the blank line a deletion leaves doubled is dropped. Additions without a section go under
 * one `## <stamp>` heading at the end of the file; with a section, at the end of that section
 * (a new `## <section>` at the end when the file has none).
 */
export function editText(
  text: string,
  edits: readonly LineEdit[],
  stamp: string,
  path: string,
): EditOutcome {
  const lines = text.split("\n");
  const trailingNewline = text.endsWith("\n");
  if (trailingNewline) lines.pop();
  const n = lines.length;
  const replaceAt = new Map<number, Extract<LineEdit, { kind: "replace" }>>();
  const deleted = new Map<number, string>(); // line → edit id
  for (const e of edits) {
    if (e.kind === "replace") replaceAt.set(e.startLine, e);
    if (e.kind === "delete") for (let i = e.startLine; i <= e.endLine; i++) deleted.set(i, e.id);
  }
  const adds = edits.filter((e): e is Extract<LineEdit, { kind: "add" }> => e.kind === "add");
  const headings = lines.map((l) => HEADING_RE.exec(l));
  // Section additions: after the last non-blank line of the section (before the next heading).
  const insertAfter = new Map<number, Array<Extract<LineEdit, { kind: "add" }>>>();
  const newSections = new Map<string, Array<Extract<LineEdit, { kind: "add" }>>>();
  for (const a of adds) {
    if (!a.section?.trim()) continue;
    const wanted = a.section
      .trim()
      .replace(/^#+\s*/, "")
      .toLowerCase();
    const h = headings.findIndex((m) => m && (m[2] as string).trim().toLowerCase() === wanted);
    if (h < 0) {
      const list = newSections.get(a.section.trim()) ?? [];
      list.push(a);
      newSections.set(a.section.trim(), list);
      continue;
    }
    const level = ((headings[h] as RegExpExecArray)[1] as string).length;
    let end = h; // 0-based index of the last line of the section's own content
    for (let i = h + 1; i < n; i++) {
      const m = headings[i];
      if (m && (m[1] as string).length <= level) break;
      if ((lines[i] as string).trim()) end = i;
    }
    const list = insertAfter.get(end + 1) ?? [];
    list.push(a);
    insertAfter.set(end + 1, list);
  }

  const out: string[] = [];
  /** Original line number of each output line (0 for new lines). */
  const origin: number[] = [];
  /** The edit that wrote each output line ("" for kept lines). */
  const tags: string[] = [];
  const removed: RemovedLines[] = [];
  const emit = (line: string, from: number, tag = "") => {
    out.push(line);
    origin.push(from);
    tags.push(tag);
  };
  let skipBlank = false;
  for (let i = 1; i <= n; i++) {
    const line = lines[i - 1] as string;
    const rep = replaceAt.get(i);
    if (rep) {
      const old = lines.slice(i - 1, rep.endLine);
      const fresh = rep.raw
        ? rep.text.replace(/\n+$/, "").split("\n")
        : replacementLines(old[0] ?? "", rep.text);
      if (rep.note) fresh[fresh.length - 1] = `${fresh[fresh.length - 1]} ${rep.note}`;
      // An entry kept as it was (the survivor of a merge) is not archived.
      if (fresh.join("\n") !== old.join("\n")) {
        removed.push({
          id: rep.id,
          from: { path, startLine: i, endLine: rep.endLine },
          lines: old,
        });
      }
      for (const l of fresh) emit(l, 0, rep.id);
      i = rep.endLine;
      skipBlank = false;
      continue;
    }
    const del = deleted.get(i);
    if (del !== undefined) {
      let end = i;
      while (end + 1 <= n && deleted.get(end + 1) === del) end++;
      removed.push({
        id: del,
        from: { path, startLine: i, endLine: end },
        lines: lines.slice(i - 1, end),
      });
      i = end;
      // Two blank lines meeting where the entry was: keep one.
      skipBlank = out.length === 0 || (out[out.length - 1] as string).trim() === "";
      continue;
    }
    if (skipBlank && line.trim() === "") {
      skipBlank = false;
      continue;
    }
    skipBlank = false;
    emit(line, i);
    for (const a of insertAfter.get(i) ?? []) for (const l of asItem(a.text)) emit(l, 0, a.id);
  }

  dropEmptiedHeadings(out, origin, tags, lines, removed, path);

  const plain = adds.filter((a) => !a.section?.trim());
  const blocks: Array<{ heading: string; items: Array<Extract<LineEdit, { kind: "add" }>> }> = [];
  if (plain.length) blocks.push({ heading: `## ${stamp}`, items: plain });
  for (const [section, items] of newSections) blocks.push({ heading: `## ${section}`, items });
  for (const block of blocks) {
    while (out.length && (out[out.length - 1] as string).trim() === "") {
      out.pop();
      origin.pop();
      tags.pop();
    }
    if (out.length) emit("", 0);
    emit(block.heading, 0);
    emit("", 0);
    for (const a of block.items) for (const l of asItem(a.text)) emit(l, 0, a.id);
  }
  const placed = new Map<string, { startLine: number; endLine: number }>();
  tags.forEach((tag, i) => {
    if (!tag) return;
    const at = placed.get(tag);
    if (at) at.endLine = i + 1;
    else placed.set(tag, { startLine: i + 1, endLine: i + 1 });
  });
  const result = out.join("\n") + (trailingNewline || blocks.length || text === "" ? "\n" : "");
  return { text: result, placed, removed };
}

/**
 * Remove headings whose section had content before the edits and has none after, with the blank
 * lines under them; the removed heading is attributed to the edit that removed the section's
 * first line.
 */
function dropEmptiedHeadings(
  out: string[],
  origin: number[],
  tags: string[],
  original: readonly string[],
  removed: RemovedLines[],
  path: string,
): void {
  const headingAt = (i: number) => HEADING_RE.exec(out[i] as string);
  for (let i = out.length - 1; i >= 0; i--) {
    const m = headingAt(i);
    if (!m || origin[i] === 0) continue;
    const level = (m[1] as string).length;
    let j = i + 1;
    while (j < out.length && !(out[j] as string).trim()) j++;
    const next = j < out.length ? headingAt(j) : null;
    const emptyNow = j >= out.length || (next !== null && (next[1] as string).length <= level);
    if (!emptyNow) continue;
    // The section in the original: from the heading to the next heading of this level or higher.
    const from = origin[i] as number;
    let to = original.length;
    for (let k = from; k < original.length; k++) {
      const h = HEADING_RE.exec(original[k] as string);
      if (h && (h[1] as string).length <= level) {
        to = k;
        break;
      }
    }
    const hadContent = original.slice(from, to).some((l) => l.trim() !== "");
    if (!hadContent) continue;
    const by = removed.find((r) => r.from.startLine > from && r.from.startLine <= to);
    if (!by) continue;
    removed.push({
      id: by.id,
      from: { path, startLine: from, endLine: from },
      lines: [out[i] as string],
      heading: true,
    });
    // The heading and the blank lines after it; then one blank line too many may remain above.
    out.splice(i, j - i);
    origin.splice(i, j - i);
    tags.splice(i, j - i);
    if (i > 0 && i < out.length && !(out[i - 1] as string).trim() && !(out[i] as string).trim()) {
      out.splice(i, 1);
      origin.splice(i, 1);
      tags.splice(i, 1);
    }
  }
}
