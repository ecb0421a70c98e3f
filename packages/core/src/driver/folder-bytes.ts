import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * Bytes used by the files under `folder`, at any depth: what a store kept in a folder of its own
 * (every table, old version and index of it) takes on disk, for `stats().bytes`. 0 when the
 * folder does not exist; a file removed while it is counted counts 0.
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
