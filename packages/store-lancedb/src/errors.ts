import {
  type EngramError,
  errorSummary,
  isEngramError,
  storeFailedError,
} from "@engram/core/driver";
import type { Location } from "./options.js";

/** The fix for a damaged or unreadable index: it is a cache of the Markdown files. */
export function rebuildHint(location: Location): string {
  if (location.kind === "memory") return "Recreate the in-memory store.";
  return `Delete ${location.folder ?? location.uri} and run \`engram sync\`; the index is rebuilt from your Markdown files.`;
}

/**
 * Turn an error thrown by LanceDB (a plain `Error` from its native layer) into an
 * {@link EngramError} `STORE_FAILED` that names the action, the database and a fix. EngramErrors
 * pass through unchanged.
 */
export function toEngramError(error: unknown, location: Location, action: string): EngramError {
  if (isEngramError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const fail = (problem: string, hint: string) =>
    storeFailedError({ action, problem, where: location.uri, hint, cause: error });
  if (/permission denied|access denied|forbidden|read-only file system/i.test(message)) {
    return fail(
      "access was denied",
      location.kind === "remote"
        ? "Check the credentials and permissions in storageOptions (or the environment) for this bucket."
        : "Check that this user may write to the folder and every file in it.",
    );
  }
  if (/no space left|disk full|quota exceeded/i.test(message)) {
    return fail("the disk is full", "Free some disk space, then run `engram sync` again.");
  }
  if (
    location.kind === "remote" &&
    /connect|dns|timed? ?out|network|credential|token|region|endpoint/i.test(message)
  ) {
    return fail(
      `the object store did not answer as expected: ${errorSummary(error)}`,
      "Check the URI, the network, and the credentials, region and endpoint in storageOptions.",
    );
  }
  return fail(errorSummary(error), rebuildHint(location));
}

/**
 * True for LanceDB's error when a file of the version a read started from is gone: another
 * process (or this one's upkeep) pruned that version while the read ran, or the read used a
 * snapshot older than its consistency interval. Reading again from the latest version succeeds.
 */
export function isMissingFile(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /\bNot found: |\bNotFound\b|No such file or directory/.test(message);
}
