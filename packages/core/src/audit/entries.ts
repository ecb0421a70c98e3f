import { frontMatterEnd } from "../chunking/front-matter.js";

/** One entry of a long-term file: a list item or a paragraph, with its lines and date. */
export interface LongTermEntry {
  path: string;
  startLine: number;
  endLine: number;
  text: string;
  /** The `## YYYY-MM-DD[ HH:MM]` heading it sits under (engram's append format), if any. */
  dated?: Date;
}

const DATED_HEADING = /^#{1,6}\s+(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2}))?\b/;
const HEADING = /^#{1,6}\s/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;

/** Split a long-term file into entries (front matter, headings and blank lines are not entries). */
export function longTermEntries(path: string, text: string): LongTermEntry[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const first = frontMatterEnd(lines) + 1;
  const entries: LongTermEntry[] = [];
  let dated: Date | undefined;
  let open: LongTermEntry | null = null;
  let fence = false;
  const close = () => {
    if (open) entries.push(open);
    open = null;
  };
  for (let i = first; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      close();
      continue;
    }
    if (fence) continue;
    const heading = DATED_HEADING.exec(line);
    if (heading) {
      close();
      const parsed = new Date(`${heading[1]}T${heading[2] ?? "00:00"}:00`);
      dated = Number.isNaN(parsed.getTime()) ? undefined : parsed;
      continue;
    }
    if (HEADING.test(line) || line.trim() === "" || /^<!--.*-->$/.test(line.trim())) {
      close();
      continue;
    }
    if (LIST_ITEM.test(line) || !open) {
      close();
      open = {
        path,
        startLine: i + 1,
        endLine: i + 1,
        text: line.trim(),
        ...(dated ? { dated } : {}),
      };
      continue;
    }
    open.endLine = i + 1;
    open.text += ` ${line.trim()}`;
  }
  close();
  return entries;
}

const KEY_VALUE = /^(?:[-*+]\s+|\d+[.)]\s+)?([^:：=]{2,60}?)\s*[:：=]\s*(\S.*)$/u;

/**
 * An entry of the form `key: value` (or `key：value`, `key = value`), with the key normalised, or
 * null: what two entries must share to contradict each other.
 */
export function keyValueOf(text: string): { key: string; value: string } | null {
  const m = KEY_VALUE.exec(text.replace(/[*_`]/g, ""));
  if (!m) return null;
  const key = (m[1] as string).normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  if (key.split(" ").length > 6 || /^https?$/.test(key)) return null;
  return { key, value: (m[2] as string).trim() };
}
