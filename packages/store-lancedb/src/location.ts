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
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    if (entry.isFile())
      total += (await stat(join(entry.parentPath, entry.name)).catch(() => null))?.size ?? 0;
  }
  return total;
}
