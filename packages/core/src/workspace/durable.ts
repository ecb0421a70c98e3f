import { lstat, open } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";

/** Flush a file's bytes to disk. */
export async function syncFile(abs: string): Promise<void> {
  const handle = await open(abs, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Make a folder's entries (a new or removed name) durable; best effort (Windows and some file systems refuse). */
export async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // unsupported here; the files themselves are synced
  }
}

/**
 * Refuses a write target (workspace-relative POSIX `rel`) that is, or lies below, a symbolic
 * link, or whose parts are in the way (a file where a folder should be, a folder where the file
 * should be). Missing parts are fine: they will be created. Writes never leave the workspace.
 *
 * @throws EngramError `PATH_OUTSIDE_WORKSPACE` for a link; `PATH_NOT_ALLOWED` for a part in the way.
 */
export async function assertNoLinks(workspace: string, rel: string): Promise<void> {
  let cursor = workspace;
  const parts = rel.split("/");
  for (const [i, part] of parts.entries()) {
    cursor = path.join(cursor, part);
    const st = await lstat(cursor).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (st === null) return;
    if (st.isSymbolicLink()) {
      throw new EngramError(
        "PATH_OUTSIDE_WORKSPACE",
        `${rel} is or goes through a symbolic link; engram does not write through links`,
        { hint: "replace the link with a real folder or file inside the workspace" },
      );
    }
    if (i < parts.length - 1 ? !st.isDirectory() : !st.isFile()) {
      throw new EngramError(
        "PATH_NOT_ALLOWED",
        `${rel} cannot be written: ${cursor} is in the way`,
        {
          hint: `move ${cursor} aside`,
        },
      );
    }
  }
}
