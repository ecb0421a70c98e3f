/** A transcript turned into text the chunker can index. */
export interface RenderedTranscript {
  /**
   * One line per transcript line, in order: line N of `text` is line N of the `.jsonl` file, so a
   * chunk's line range is the transcript's real line range. A message is written as
   * `role (timestamp): text` with its own line breaks shown as ` ↵ `; lines without text (tool
   * calls, metadata, blank or malformed lines) are left empty.
   */
  text: string;
  /** Lines that carried message text. */
  messages: number;
  /** 1-based numbers of lines that are not a JSON object (skipped). */
  malformed: number[];
  /** True when the last line has no newline and does not parse yet (a write in progress): left out. */
  partial: boolean;
}

/** Shown between the lines of a multi-line message, which is kept on one transcript line. */
export const LINE_BREAK_MARK = " ↵ ";

/**
 * Render a `.jsonl` transcript for indexing. Each line is one message: `{ role, content | text,
 * timestamp? }`, where `content` is a string or an array of parts whose text parts are kept
 * (`{ type: "text", text }` or plain strings). A message nested as `{ message: { role, content } }`
 * is read too. Malformed lines are skipped and reported, never fatal.
 */
export function renderTranscript(source: string): RenderedTranscript {
  const lines = source.split("\n");
  const complete = source.endsWith("\n");
  if (complete) lines.pop();
  const out: string[] = [];
  const malformed: number[] = [];
  let messages = 0;
  let partial = false;
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") {
      out.push("");
      continue;
    }
    const value = parseObject(line);
    if (value === undefined) {
      if (i === lines.length - 1 && !complete) partial = true;
      else malformed.push(i + 1);
      out.push("");
      continue;
    }
    const rendered = renderMessage(value);
    if (rendered) messages++;
    out.push(rendered);
  }
  if (partial) out.pop();
  return { text: out.length ? `${out.join("\n")}\n` : "", messages, malformed, partial };
}

/** A one-sentence warning for skipped lines, or undefined when there were none. */
export function malformedWarning(path: string, malformed: readonly number[]): string | undefined {
  if (!malformed.length) return undefined;
  const first = malformed.slice(0, 5).join(", ");
  const more = malformed.length > 5 ? `, …` : "";
  return `${path}: ${malformed.length} malformed line(s) skipped (line ${first}${more}); each line must be one JSON object`;
}

type Json = Record<string, unknown>;

function parseObject(line: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function renderMessage(value: Json): string {
  const message = isObject(value.message) ? { ...value, ...value.message } : value;
  const text = textOf(message.content) ?? textOf(message.text);
  if (!text) return "";
  const role = roleOf(message.role ?? value.type);
  const when = timestampOf(message.timestamp ?? value.timestamp);
  const body = text.trim().replace(/\s*\r?\n\s*/g, LINE_BREAK_MARK);
  return `${role}${when ? ` (${when})` : ""}: ${body}`;
}

/** The text of a content value: a string, a text part, or the text parts of an array. */
function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content.trim() ? content : undefined;
  if (Array.isArray(content)) {
    const parts = content.map(partText).filter((t): t is string => Boolean(t?.trim()));
    return parts.length ? parts.join("\n") : undefined;
  }
  return isObject(content) ? partText(content) : undefined;
}

function partText(part: unknown): string | undefined {
  if (typeof part === "string") return part;
  if (!isObject(part) || typeof part.text !== "string") return undefined;
  return part.type === undefined || part.type === "text" ? part.text : undefined;
}

/** A role as a plain word, so a rendered line never starts with Markdown syntax. */
function roleOf(role: unknown): string {
  const word = typeof role === "string" ? role.replace(/[^\p{L}\p{N}_-]/gu, "").slice(0, 32) : "";
  return word || "message";
}

function timestampOf(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) {
    const date = new Date(value < 1e12 ? value * 1000 : value);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  }
  if (typeof value !== "string") return undefined;
  const clean = value
    .replace(/[\r\n()]/g, "")
    .trim()
    .slice(0, 40);
  return clean || undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
