import path from "node:path";
import { EngramError } from "../errors.js";
import { writeFileAtomic } from "../workspace/atomic.js";
import { assertNoLinks } from "../workspace/durable.js";
import { DEFAULT_MAX_FILE_BYTES, readUtf8 } from "../workspace/read.js";

/** Absolute path of the workspace-relative POSIX path `rel`. */
export function absPath(workspace: string, rel: string): string {
  return path.join(workspace, ...rel.split("/"));
}

/** The text of `rel` (strict UTF-8), or null when it does not exist. */
export async function readTextIfExists(workspace: string, rel: string): Promise<string | null> {
  await assertNoLinks(workspace, rel);
  try {
    return (await readUtf8(absPath(workspace, rel), { maxBytes: DEFAULT_MAX_FILE_BYTES })).text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Replaces `rel` with `text` atomically (temp file + rename), never through a link. */
export async function writeText(workspace: string, rel: string, text: string): Promise<void> {
  await assertNoLinks(workspace, rel);
  await writeFileAtomic(absPath(workspace, rel), text);
}

/**
 * The parsed JSON of `rel`, or `fallback` when it does not exist.
 *
 * @throws EngramError `INVALID_ENCODING` when the file is not valid JSON (it is never overwritten
 * then: the caller stops, so a hand edit with a typo loses nothing).
 */
export async function readJson(
  workspace: string,
  rel: string,
  fallback: unknown,
): Promise<unknown> {
  const text = await readTextIfExists(workspace, rel);
  if (text === null) return fallback;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidJson(rel, (error as Error).message);
  }
}

/** The error for a JSON file whose content is not what engram wrote. */
export function invalidJson(rel: string, why: string): EngramError {
  return new EngramError("FILE_INVALID", `${rel} is not valid: ${why}`, {
    hint: `fix ${rel} by hand (it is plain JSON), or move it aside to start afresh`,
  });
}

/** Writes `value` to `rel` as pretty JSON with a final newline, atomically. */
export function writeJson(workspace: string, rel: string, value: unknown): Promise<void> {
  return writeText(workspace, rel, `${JSON.stringify(value, null, 2)}\n`);
}
