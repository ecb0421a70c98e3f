import { mkdir, stat } from "node:fs/promises";
import { EngramError } from "../errors.js";

/**
 * Create `<workspace>/.engram` if it is missing. Something else in its place (a regular file, a
 * link to a file) is not moved or deleted — engram never makes one, so it belongs to someone
 * else — but refused with an error that names it and the fix.
 *
 * @throws EngramError `STORE_FAILED` when `dir` exists and is not a folder.
 */
export async function ensureIndexDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const info = await stat(dir).catch(() => undefined);
    if ((code === "EEXIST" || code === "ENOTDIR") && info && !info.isDirectory()) {
      throw new EngramError(
        "STORE_FAILED",
        `${dir} is a file, but engram keeps its index in a folder of that name`,
        {
          hint: "move or delete that file: engram never writes one there, and rebuilds its index from your Markdown files",
          cause: error,
        },
      );
    }
    throw error;
  }
}
