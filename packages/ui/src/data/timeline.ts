import { localDate, type Memory, type MemoryScope, type Tier } from "@engram/core";
import { dateOfPath } from "@engram/core/internal";
import { UiRefusal } from "../errors.js";
import { headingLines } from "../markdown.js";
import { readFileView, tierOf } from "./files.js";
import type { WorkspaceListing } from "./listing.js";

/** One entry of a daily log: a `## HH:MM` section (or the text before the first one). */
export interface TimelineEntry {
  /** The heading's text (`10:42`), or null for text above the first heading. */
  heading: string | null;
  startLine: number;
  endLine: number;
  /** The entry's lines as the scope may see them. */
  text: string;
}

/** A daily log on the timeline (live in the log folder, or archived). */
export interface TimelineLog {
  path: string;
  tier: Tier;
  size: number;
  mtimeMs: number;
  /** Set when the scope may not see the log: it is listed, its text is not. */
  hidden?: "personal" | "sensitive";
  entries: TimelineEntry[];
}

/** One day of the timeline. */
export interface TimelineDay {
  date: string;
  /** `today` and `yesterday` are shown on top. */
  label: "today" | "yesterday" | null;
  logs: TimelineLog[];
}

/** One page of the timeline, newest days first. */
export interface TimelinePage {
  days: TimelineDay[];
  /** Days with a log, in all. */
  totalDays: number;
  /** Pass as `before` for the next (older) page; absent on the last page. */
  nextBefore?: string;
}

/** Options of {@link buildTimeline}. */
export interface TimelineOptions {
  scope: MemoryScope;
  /** Days per page (default 7). */
  days?: number;
  /** Only days before this date (`YYYY-MM-DD`): the next page. */
  before?: string;
  now?: Date;
}

/**
 * The daily logs by day, newest first with today's and yesterday's on top: every memory file
 * named `YYYY-MM-DD.md` (in the layout's log folder, or archived), each split into its entries
 * with their line ranges. Only the page's logs are read.
 */
export async function buildTimeline(
  memory: Memory,
  listing: WorkspaceListing,
  options: TimelineOptions,
): Promise<TimelinePage> {
  const now = options.now ?? memory.clock.now();
  const today = localDate(now);
  const yesterday = localDate(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1));
  const byDate = new Map<string, Array<{ path: string; size: number; mtimeMs: number }>>();
  for (const file of await listing.files()) {
    const day = dateOfPath(file.path);
    if (!day) continue;
    const date = localDate(day);
    const list = byDate.get(date);
    const item = { path: file.path, size: file.size, mtimeMs: file.mtimeMs };
    if (list) list.push(item);
    else byDate.set(date, [item]);
  }
  const rank = (d: string) => (d === today ? 0 : d === yesterday ? 1 : 2);
  let dates = [...byDate.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? 1 : a > b ? -1 : 0));
  if (options.before) {
    const before = options.before;
    dates = dates.filter((d) => d < before && rank(d) === 2);
  }
  const perPage = options.days ?? 7;
  const shown = dates.slice(0, perPage);
  const days: TimelineDay[] = [];
  for (const date of shown) {
    const files = (byDate.get(date) ?? []).sort((a, b) => (a.path < b.path ? -1 : 1));
    const logs = await Promise.all(files.map((f) => timelineLog(memory, f, options.scope)));
    days.push({
      date,
      label: date === today ? "today" : date === yesterday ? "yesterday" : null,
      logs,
    });
  }
  // The oldest day shown: the next page starts below it.
  const oldest = shown.reduce<string | undefined>(
    (min, d) => (min === undefined || d < min ? d : min),
    undefined,
  );
  return {
    days,
    totalDays: byDate.size,
    ...(oldest && dates.length > perPage ? { nextBefore: oldest } : {}),
  };
}

async function timelineLog(
  memory: Memory,
  file: { path: string; size: number; mtimeMs: number },
  scope: MemoryScope,
): Promise<TimelineLog> {
  const base = { ...file, tier: tierOf(memory, file.path) };
  try {
    const view = await readFileView(memory, file.path, scope);
    return { ...base, entries: splitEntries(view.text) };
  } catch (error) {
    if (error instanceof UiRefusal && error.code === "MAIN_SCOPE_ONLY") {
      return {
        ...base,
        hidden: error.message.includes("sensitive") ? "sensitive" : "personal",
        entries: [],
      };
    }
    throw error;
  }
}

/**
 * A log's entries: each level-2 heading starts one, running to the line before the next (blank
 * lines at its end left out). Text above the first heading is an entry of its own unless it is
 * only the log's `# date` title.
 */
export function splitEntries(text: string): TimelineEntry[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const starts = headingLines(text).filter((h) => h.level === 2);
  const entries: TimelineEntry[] = [];
  const push = (heading: string | null, from: number, to: number) => {
    let end = to;
    while (end >= from && (lines[end - 1] ?? "").trim() === "") end--;
    if (end < from) return;
    entries.push({
      heading,
      startLine: from,
      endLine: end,
      text: lines.slice(from - 1, end).join("\n"),
    });
  };
  const firstHeading = starts[0]?.line ?? lines.length + 1;
  const preamble = lines.slice(0, firstHeading - 1);
  if (preamble.some((l) => l.trim() !== "" && !/^#\s/.test(l))) push(null, 1, firstHeading - 1);
  for (const [i, h] of starts.entries()) {
    push(h.title, h.line, (starts[i + 1]?.line ?? lines.length + 1) - 1);
  }
  return entries;
}
