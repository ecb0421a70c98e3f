import { readdir } from "node:fs/promises";
import { workspacePath } from "../lifecycle/files.js";
import { PRIVATE_CLOSE, PRIVATE_OPEN } from "../workspace/privacy.js";
import { readTexts } from "../workspace/read-texts.js";
import { formatRef, type LineRef, tryParseRef } from "./citations.js";
import { entriesOf } from "./curated.js";
import { ARCHIVE_DIR } from "./paths.js";

/** Why lines went to the archive. */
export type ArchiveReason = "merged" | "updated" | "superseded" | "forgotten";

/** One archived stretch of lines, with where it came from and why. */
export interface ArchiveRecord {
  reason: ArchiveReason;
  from: LineRef;
  /** The lines, verbatim. */
  lines: string[];
  /** The pass or operation that archived them (e.g. `20260301T030000Z-ab12cd`). */
  pass: string;
  /** `HH:MM` of the pass. */
  time: string;
  /** Why, in words (the operation's reason, or the user's `--reason`). */
  why: string;
  /** What replaced them (UPDATE, SUPERSEDE, MERGE): the new text or where it lives. */
  replacedBy?: string;
  /** True when the lines were private where they lived: the archive keeps them private. */
  private: boolean;
}

const OPEN_RE = /^<!-- engram:archived (.*) -->$/;
const CLOSE = "<!-- /engram:archived -->";

/**
 * The Markdown of archive records, appended to a day's archive file. Each record is delimited by
 * `<!-- engram:archived … -->` / `<!-- /engram:archived -->`, carries a heading and its reason as
 * a quote, then the lines exactly as they were (inside a private block when they were private).
 */
export function formatArchive(
  existing: string | null,
  title: string,
  records: readonly ArchiveRecord[],
): string {
  const parts: string[] = [];
  let base = existing ?? `# ${title}\n`;
  if (!base.endsWith("\n")) base += "\n";
  for (const r of records) {
    const attrs = `reason=${r.reason} from=${formatRef(r.from)} pass=${r.pass}`;
    const body = r.private ? [PRIVATE_OPEN, ...r.lines, PRIVATE_CLOSE] : [...r.lines];
    parts.push(
      [
        `<!-- engram:archived ${attrs} -->`,
        `## ${r.time} · ${r.reason} · ${formatRef(r.from)}`,
        "",
        `> ${oneLine(r.why)}`,
        ...(r.replacedBy ? [`> replaced by: ${oneLine(r.replacedBy)}`] : []),
        "",
        ...body,
        CLOSE,
      ].join("\n"),
    );
  }
  return `${base}\n${parts.join("\n\n")}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** The records of an archive file's text (records it cannot parse are skipped). */
export function parseArchive(
  text: string,
): Array<Pick<ArchiveRecord, "reason" | "from" | "pass" | "lines">> {
  const lines = text.split("\n");
  const out: Array<Pick<ArchiveRecord, "reason" | "from" | "pass" | "lines">> = [];
  for (let i = 0; i < lines.length; i++) {
    const m = OPEN_RE.exec(lines[i] as string);
    if (!m) continue;
    const attrs = Object.fromEntries(
      (m[1] as string).split(" ").map((kv) => {
        const at = kv.indexOf("=");
        return [kv.slice(0, at), kv.slice(at + 1)];
      }),
    );
    let j = i + 1;
    // heading, blank, quoted reason lines, blank: the body starts after the first blank line that
    // follows the quote.
    while (j < lines.length && !(lines[j] as string).startsWith(">")) j++;
    while (j < lines.length && (lines[j] as string).startsWith(">")) j++;
    j++;
    const body: string[] = [];
    while (j < lines.length && lines[j] !== CLOSE) body.push(lines[j++] as string);
    const from = tryParseRef(String(attrs.from ?? ""));
    if (!from) continue;
    const inner =
      body[0] === PRIVATE_OPEN && body[body.length - 1] === PRIVATE_CLOSE
        ? body.slice(1, -1)
        : body;
    out.push({
      reason: attrs.reason as ArchiveReason,
      from,
      pass: String(attrs.pass ?? ""),
      lines: inner,
    });
    i = j;
  }
  return out;
}

/**
 * Texts the user forgot (`engram forget`), from every consolidation archive file: consolidation
 * never adds them back. Undoing the forget removes its record, and with it the tombstone.
 */
export async function readTombstones(ws: string): Promise<string[]> {
  const names = await readdir(workspacePath(ws, ARCHIVE_DIR)).catch(() => [] as string[]);
  const files = names
    .filter((n) => n.endsWith(".md"))
    .sort()
    .map((name) => ({ absPath: workspacePath(ws, `${ARCHIVE_DIR}/${name}`) }));
  const out: string[] = [];
  for await (const [, { text }] of readTexts(files)) {
    for (const r of parseArchive(text)) {
      if (r.reason !== "forgotten") continue;
      for (const e of entriesOf(r.lines.join("\n"))) out.push(e.text);
    }
  }
  return out;
}
