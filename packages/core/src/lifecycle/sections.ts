/** One entry under a heading of a Markdown file: a list item or a paragraph, with its lines. */
export interface SectionEntry {
  /** The heading it sits under (e.g. `Decisions`). */
  heading: string;
  /** The entry's text, list marker removed. */
  text: string;
  /** 1-based inclusive lines. */
  startLine: number;
  endLine: number;
}

const HEADING_RE = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const ITEM_RE = /^[-*+]\s+|^\d+[.)]\s+/;

/**
 * The entries under the headings named in `headings` (case-insensitive, any level): each top-level
 * list item (with its continuation lines) or each paragraph is one entry. A section ends at the
 * next heading of the same or a higher level. Fenced code stays inside its entry.
 */
export function sectionEntries(text: string, headings: readonly string[]): SectionEntry[] {
  const wanted = new Set(headings.map((h) => h.trim().toLowerCase()));
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const out: SectionEntry[] = [];
  let section: { heading: string; level: number } | null = null;
  let current: { lines: string[]; start: number } | null = null;
  let fenced = false;
  const close = (end: number) => {
    if (current && section) {
      const body = current.lines.join("\n").trim();
      if (body)
        out.push({ heading: section.heading, text: body, startLine: current.start, endLine: end });
    }
    current = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const n = i + 1;
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const h = fenced ? null : HEADING_RE.exec(line);
    if (h) {
      const level = (h[1] as string).length;
      if (section && level <= section.level) {
        close(n - 1);
        section = null;
      }
      const title = (h[2] as string).trim();
      if (!section && wanted.has(title.toLowerCase())) section = { heading: title, level };
      continue;
    }
    if (!section) continue;
    if (!fenced && line.trim() === "") {
      // a blank line ends a paragraph, not a list item followed by an indented continuation
      if (current && !ITEM_RE.test((current as { lines: string[] }).lines[0] ?? "")) close(n - 1);
      continue;
    }
    if (!fenced && ITEM_RE.test(line)) {
      close(n - 1);
      current = { lines: [line.replace(ITEM_RE, "")], start: n };
      continue;
    }
    if (current) (current as { lines: string[] }).lines.push(line.replace(/^\s{2,4}/, ""));
    else current = { lines: [line], start: n };
  }
  close(trimmedEnd(lines));
  return fixEnds(out, lines);
}

/** Last non-blank line number. */
function trimmedEnd(lines: readonly string[]): number {
  let end = lines.length;
  while (end > 0 && (lines[end - 1] ?? "").trim() === "") end--;
  return end;
}

/** End lines point at the entry's last non-blank line. */
function fixEnds(entries: SectionEntry[], lines: readonly string[]): SectionEntry[] {
  for (const e of entries) {
    while (e.endLine > e.startLine && (lines[e.endLine - 1] ?? "").trim() === "") e.endLine--;
  }
  return entries;
}
