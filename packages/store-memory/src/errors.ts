import { EngramError } from "@engram/core/driver";

/** The fix for a damaged snapshot: it is a cache of the Markdown files. */
export function deleteSnapshotHint(path: string): string {
  return `Delete ${path} and run \`engram sync\`; the snapshot is only a cache of your Markdown files and is rebuilt from them.`;
}

/** The snapshot file exists but does not hold a snapshot this version can load. */
export function snapshotDamagedError(path: string, problem: string, cause?: unknown): EngramError {
  return new EngramError(
    "STORE_FAILED",
    `The memory store snapshot ${path} is damaged or not a snapshot: ${problem}.`,
    { hint: deleteSnapshotHint(path), cause },
  );
}

/** The snapshot file could not be read (permissions, a folder in its place, I/O). */
export function snapshotUnreadableError(path: string, cause: unknown): EngramError {
  return new EngramError(
    "STORE_FAILED",
    `Could not read the memory store snapshot ${path}: ${describeCause(cause)}.`,
    {
      hint: `Check that ${path} is a file this user may read, or delete it (the snapshot is a cache).`,
      cause,
    },
  );
}

/** The snapshot could not be written; the previous snapshot (if any) is left as it was. */
export function snapshotUnwritableError(path: string, cause: unknown): EngramError {
  return new EngramError(
    "STORE_FAILED",
    `Could not write the memory store snapshot ${path}: ${describeCause(cause)}.`,
    {
      hint: `Check that the folder of ${path} exists or can be created, that this user may write to it, and that the disk has space.`,
      cause,
    },
  );
}

function describeCause(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
