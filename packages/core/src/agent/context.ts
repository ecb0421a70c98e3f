import { EngramError } from "../errors.js";
import { maskSealedSpans } from "../sealing/spans.js";
import type { MemoryScope } from "../search/group-scope.js";
import { readTextIfExists } from "../tiers/files.js";
import { type Clock, localDate } from "../workspace/clock.js";
import { isValidDate } from "../workspace/layout.js";
import type { ResolvedLayout } from "../workspace/presets.js";
import { isPersonalPath, isSensitiveFile, stripPrivate } from "../workspace/privacy.js";

/** What the context builder reads: a {@link Memory} is one. */
export interface ContextSource {
  readonly workspace: string;
  readonly clock: Clock;
  readonly layout: ResolvedLayout;
}

/** Options of {@link buildMemoryContext}. */
export interface MemoryContextOptions {
  /** `main` (default): the user's own session. `group`: a shared one — see {@link MemoryScope}. */
  scope?: MemoryScope;
  /** Days of daily logs, today included (default 2: today and yesterday). */
  days?: number;
  /** Most characters of the whole context, headers included (default 12,000). */
  maxChars?: number;
  /** The day counted as today, `YYYY-MM-DD` (default: the memory's clock). */
  date?: string;
}

/** One part of a built context. */
export interface MemoryContextSection {
  title: string;
  /** Workspace-relative file the text comes from. */
  path: string;
  /** Characters of the file's text that are in the context. */
  chars: number;
  /** True when the text was cut to fit the budget. */
  truncated: boolean;
}

/** A context for a system prompt, and what went into it. */
export interface MemoryContext {
  scope: MemoryScope;
  /** The sections, each under a `## ` header; "" when there is no memory to show. */
  text: string;
  sections: MemoryContextSection[];
  /** Files left out, and why (`personal`, `sensitive`, `budget`). Missing files are not listed. */
  omitted: { path: string; reason: "personal" | "sensitive" | "budget" }[];
}

/** Default budget of a context, in characters. */
export const DEFAULT_CONTEXT_CHARS = 12_000;
/** A section with less room than this is left out rather than cut to a stub. */
const MIN_SECTION_CHARS = 200;

/**
 * Builds the memory part of a system prompt: the layout's long-term memory (`MEMORY.md` or its
 * long-term file, then the user profile), then the daily logs of today and the days before it
 * (newest first), each under a `## ` header, within `maxChars`. When the budget runs short,
 * long-term text keeps its beginning and a daily log its end (the latest entries); the cut is
 * marked. `scope: "group"` leaves out the personal files whole, files marked `sensitive: true`, and
 * every private block.
 *
 * @throws EngramError `INVALID_ARGUMENT` for a bad `scope`, `days`, `maxChars` or `date`.
 */
export async function buildMemoryContext(
  memory: ContextSource,
  options: MemoryContextOptions = {},
): Promise<MemoryContext> {
  const scope = checkScope(options.scope);
  const days = checkInt("days", options.days ?? 2, 1, 366);
  const maxChars = checkInt(
    "maxChars",
    options.maxChars ?? DEFAULT_CONTEXT_CHARS,
    MIN_SECTION_CHARS,
  );
  const { layout } = memory;
  const context: MemoryContext = { scope, text: "", sections: [], omitted: [] };

  const longTerm = [
    { title: "Long-term memory", path: layout.longTermFile, keep: "head" as const },
    { title: "User profile", path: "memory/long-term/user_profile.md", keep: "head" as const },
  ];
  const logs = recentDates(today(memory.clock, options.date), days).map((date, i) => ({
    title:
      i === 0
        ? `Today's notes (${date})`
        : i === 1
          ? `Yesterday's notes (${date})`
          : `Notes of ${date}`,
    path: `${layout.dailyLogDir}/${date}.md`,
    keep: "tail" as const,
  }));

  const parts: string[] = [];
  let used = 0;
  for (const source of [...longTerm, ...logs]) {
    const text = await readScoped(memory.workspace, source.path, scope);
    if (text === null) continue;
    if (scope === "group" && isPersonalPath(source.path, layout.personalFiles)) {
      context.omitted.push({ path: source.path, reason: "personal" });
      continue;
    }
    if (text === "sensitive") {
      context.omitted.push({ path: source.path, reason: "sensitive" });
      continue;
    }
    if (text.body === "") continue;
    const header = `## ${source.title}\n\n`;
    const room = maxChars - used - header.length - (parts.length ? 2 : 0);
    if (room < MIN_SECTION_CHARS && room < text.body.length) {
      context.omitted.push({ path: source.path, reason: "budget" });
      continue;
    }
    const body = fitToBudget(text.body, room, source.keep, source.path);
    parts.push(header + body.text);
    used += header.length + body.text.length + (parts.length > 1 ? 2 : 0);
    context.sections.push({
      title: source.title,
      path: source.path,
      chars: body.kept,
      truncated: body.kept < text.body.length,
    });
  }
  context.text = parts.join("\n\n");
  return context;
}

/** {@link buildMemoryContext}'s text alone: what goes into the system prompt. */
export async function getMemoryContext(
  memory: ContextSource,
  options: MemoryContextOptions = {},
): Promise<string> {
  return (await buildMemoryContext(memory, options)).text;
}

/**
 * The daily logs of the last `days` days (today included), newest first, joined by `---` lines;
 * "" when there are none. `scope: "group"` strips private blocks and skips sensitive files.
 *
 * @throws EngramError `INVALID_ARGUMENT` for a bad `days`, `scope` or `date`.
 */
export async function getRecentMemories(
  memory: ContextSource,
  days = 7,
  options: { scope?: MemoryScope; date?: string } = {},
): Promise<string> {
  const scope = checkScope(options.scope);
  const n = checkInt("days", days, 1, 366);
  const texts: string[] = [];
  for (const date of recentDates(today(memory.clock, options.date), n)) {
    const text = await readScoped(
      memory.workspace,
      `${memory.layout.dailyLogDir}/${date}.md`,
      scope,
    );
    if (text !== null && text !== "sensitive" && text.body !== "") texts.push(text.body);
  }
  return texts.join("\n\n---\n\n");
}

/** The file's text as the scope may see it; null when missing, "sensitive" when withheld. */
async function readScoped(
  workspace: string,
  rel: string,
  scope: MemoryScope,
): Promise<{ body: string } | "sensitive" | null> {
  const text = await readTextIfExists(workspace, rel);
  if (text === null) return null;
  // A span sealed in place shows as `[sealed]`: its ciphertext is nothing a model can read.
  if (scope === "main") return { body: maskSealedSpans(text).trim() };
  if (isSensitiveFile(text)) return "sensitive";
  return { body: stripPrivate(text).trim() };
}

/** `text` cut to `room` characters (never inside a surrogate pair), with the cut marked. */
function fitToBudget(
  text: string,
  room: number,
  keep: "head" | "tail",
  path: string,
): { text: string; kept: number } {
  if (text.length <= room) return { text, kept: text.length };
  const marker = (n: number) => `… (${n} more characters in ${path})`;
  const budget = Math.max(0, room - marker(text.length).length - 1);
  let cut = keep === "head" ? text.slice(0, budget) : text.slice(text.length - budget);
  if (keep === "head" && /[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  if (keep === "tail" && /^[\uDC00-\uDFFF]/.test(cut)) cut = cut.slice(1);
  const rest = marker(text.length - cut.length);
  return {
    text: keep === "head" ? `${cut}\n${rest}` : `${rest}\n${cut}`,
    kept: cut.length,
  };
}

function today(clock: Clock, date: string | undefined): string {
  if (date === undefined) return localDate(clock.now());
  if (typeof date !== "string" || !isValidDate(date)) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `"${String(date)}" is not a date in YYYY-MM-DD form`,
      {
        hint: 'pass a calendar date such as "2026-01-02"',
      },
    );
  }
  return date;
}

/** `date` and the `days - 1` days before it, newest first. */
function recentDates(date: string, days: number): string[] {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return Array.from({ length: days }, (_, i) => localDate(new Date(y, m - 1, d - i, 12)));
}

function checkScope(scope: unknown): MemoryScope {
  if (scope === undefined) return "main";
  if (scope === "main" || scope === "group") return scope;
  throw new EngramError(
    "INVALID_ARGUMENT",
    `scope must be "main" or "group", got ${JSON.stringify(scope)}`,
    {
      hint: 'use "group" for shared conversations (no MEMORY.md, no private blocks)',
    },
  );
}

function checkInt(
  name: string,
  value: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${name} must be a whole number from ${min} to ${max}, got ${String(value)}`,
      {
        hint: `pass e.g. ${name === "days" ? 2 : DEFAULT_CONTEXT_CHARS}`,
      },
    );
  }
  return value;
}
