import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** What kind of place a database URI names. */
export type LocationKind = "local" | "memory" | "remote";

/** A database URI and what the store needs to know about it. */
export interface Location {
  uri: string;
  kind: LocationKind;
  /** The folder on this machine, for `local` locations. */
  folder?: string;
}

/** A URI scheme (`s3:`, `memory:`), but not a Windows drive letter (`C:`). */
const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]+):/;

/** Classify `uri`: a plain path or `file://` is local, `memory://` private, anything else remote. */
export function parseLocation(uri: string): Location {
  const scheme = SCHEME.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return { uri, kind: "local", folder: uri };
  if (scheme === "file") return { uri, kind: "local", folder: fileURLToPath(uri) };
  if (scheme === "memory") return { uri, kind: "memory" };
  return { uri, kind: "remote" };
}

/**
 * Bytes used by the files under `folder` (every table, old versions and indices included): what
 * the database really takes on disk. 0 when the folder does not exist.
 */
export async function folderBytes(folder: string): Promise<number> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else if (entry.isFile())
      total += await stat(path).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}
