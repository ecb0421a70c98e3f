/** A `## ` section of a Markdown body: its heading title and the raw lines below it. */
export interface MarkdownSection {
  title: string;
  /** Lines after the heading, up to the next `## ` heading (raw, blank lines included). */
  lines: string[];
}

/** A Markdown body split at its level-2 headings. */
export interface SectionedMarkdown {
  /** Lines before the first `## ` heading (e.g. the `# ` title). */
  preamble: string[];
  sections: MarkdownSection[];
}

const H2_RE = /^##[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE_RE = /^[ \t]{0,3}(`{3,}|~{3,})/;

/** Splits `body` at `## ` headings that are not inside a code fence. */
export function splitSections(body: string): SectionedMarkdown {
  const doc: SectionedMarkdown = { preamble: [], sections: [] };
  let fence: string | null = null;
  for (const line of body.split("\n")) {
    const f = FENCE_RE.exec(line)?.[1];
    if (f && (fence === null || (f[0] === fence[0] && f.length >= fence.length))) {
      fence = fence === null ? f : null;
    }
    const h = fence === null ? H2_RE.exec(line) : null;
    if (h?.[1]) doc.sections.push({ title: h[1], lines: [] });
    else (doc.sections.at(-1)?.lines ?? doc.preamble).push(line);
  }
  return doc;
}

/** Joins a split body again; unchanged sections come back byte for byte. */
export function joinSections(doc: SectionedMarkdown): string {
  const parts = [doc.preamble.join("\n")];
  for (const s of doc.sections) parts.push([`## ${s.title}`, ...s.lines].join("\n"));
  return doc.preamble.length === 0 ? parts.slice(1).join("\n") : parts.join("\n");
}

/** The text of a section (blank lines around it trimmed). */
export function sectionText(section: MarkdownSection): string {
  return section.lines.join("\n").trim();
}

/** Section lines for `text`: a blank line, the text, a blank line. */
export function sectionLines(text: string): string[] {
  return ["", ...text.trimEnd().split("\n"), ""];
}

/**
 * Appends `line` to the section titled `title` (after its last non-blank line), creating the
 * section at the end when there is none.
 */
export function appendToSection(doc: SectionedMarkdown, title: string, line: string): void {
  const section = doc.sections.find((s) => s.title === title);
  if (!section) {
    ensureBlankEnd(doc);
    doc.sections.push({ title, lines: ["", line, ""] });
    return;
  }
  let end = section.lines.length;
  while (end > 0 && section.lines[end - 1]?.trim() === "") end--;
  if (end === 0) section.lines.splice(0, section.lines.length, "", line, "");
  else section.lines.splice(end, 0, line);
}

/** Makes the text before a new section end with a blank line. */
export function ensureBlankEnd(doc: SectionedMarkdown): void {
  const last = doc.sections.at(-1)?.lines ?? doc.preamble;
  while (last.length > 0 && last[last.length - 1]?.trim() === "") last.pop();
  if (last.length > 0 || doc.sections.length > 0) last.push("");
}
