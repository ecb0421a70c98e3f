import { EngramError } from "../errors.js";
import { appendLongTerm } from "../workspace/append.js";
import { resolveLayout } from "../workspace/presets.js";
import { privateRanges } from "../workspace/privacy.js";
import { type DedupeOptions, type DuplicateMatch, findDuplicate } from "./dedupe.js";
import {
  hostNow,
  type LifecycleHost,
  type LifecycleTimeOptions,
  type Summariser,
  syncIndex,
} from "./host.js";

export type { Summariser } from "./host.js";

import { markPromoted } from "./project-candidates.js";

/** Options of {@link promote}. */
export interface PromoteOptions
  extends LifecycleTimeOptions,
    Pick<DedupeOptions, "threshold" | "vectorThreshold"> {
  /** Long-term file to append to (default `lifecycle.promote.file`, else the layout's long-term file). */
  to?: string;
  /** A `### section` heading put above the text inside the entry. */
  section?: string;
  /** Written as a `tags: a, b` line under the text. */
  tags?: readonly string[];
  summarise?: Summariser;
}

/** What {@link promote} did. */
export type PromoteResult =
  | { written: true; path: string; startLine: number; endLine: number; text: string }
  | { written: false; duplicate: DuplicateMatch; text: string };

/**
 * Append `text` to long-term memory under a timestamp heading — unless it is already there: an
 * exact (normalised) duplicate, a near duplicate by terms (Jaccard ≥ `threshold`, default 0.8)
 * or, with an embedding provider, by vectors (cosine ≥ `vectorThreshold`, default 0.92) is not
 * written, and the answer names where it lives (path and lines).
 *
 * @throws EngramError `INVALID_ARGUMENT` for empty text or text holding a private block;
 * `PATH_NOT_ALLOWED` when `to` is not a memory file.
 */
export async function promote(
  host: LifecycleHost,
  text: string,
  options: PromoteOptions = {},
): Promise<PromoteResult> {
  if (typeof text !== "string" || text.trim() === "") {
    throw new EngramError("INVALID_ARGUMENT", "nothing to promote: the text is empty", {
      hint: "pass the fact to keep in long-term memory",
    });
  }
  if (privateRanges(text).length > 0) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      "the text holds a private block; private memory is never promoted",
      {
        hint: "remove the <!-- engram:private --> block, or keep it where it is",
      },
    );
  }
  const file = promoteTarget(host, options.to);
  const now = hostNow(host, options);
  let body = text.trim();
  if (options.summarise)
    body = (await options.summarise({ kind: "promote", path: file, text: body })).trim();
  const duplicate = await findDuplicate(host, body, options);
  if (duplicate) {
    await markPromoted(host.workspace, new Set([text.trim(), body]), duplicate.path);
    return { written: false, duplicate, text: body };
  }
  const entry = formatEntry(body, options);
  const result = await appendLongTerm(host.workspace, entry, { file, clock: { now: () => now } });
  await markPromoted(host.workspace, new Set([text.trim(), body]), result.path);
  await syncIndex(host, [result.path]);
  return {
    written: true,
    path: result.path,
    startLine: result.startLine,
    endLine: result.endLine,
    text: body,
  };
}

/** The file promotions go to: `to`, else `lifecycle.promote.file`, else the layout's long-term file. */
export function promoteTarget(host: LifecycleHost, to?: string): string {
  return to ?? host.config.lifecycle.promote.file ?? resolveLayout(host.config).longTermFile;
}

/** The entry's body: optional `### section`, the text, optional `tags:` line. */
export function formatEntry(
  text: string,
  options: { section?: string; tags?: readonly string[] },
): string {
  const tags = (options.tags ?? []).map((t) => t.trim()).filter(Boolean);
  return [
    options.section?.trim() ? `### ${options.section.trim()}\n\n` : "",
    text.trim(),
    tags.length ? `\n\ntags: ${tags.join(", ")}` : "",
  ].join("");
}
