import { mkdir } from "node:fs/promises";
import path from "node:path";

/**
 * Replaces `absPath` with `content` all at once: writes a temp file beside it, fsyncs it and
 * renames it into place, so a reader or a crash sees the old file or the new one, never half of
 * either. Missing parent folders are created. (Append-only files use `workspace/append` instead.)
 */
export async function writeFileAtomic(absPath: string, content: string | Buffer): Promise<void> {
  await mkdir(path.dirname(absPath), { recursive: true });
  // Loaded on first use: most commands never write a whole file.
  const { default: writeFileAtomicLib } = await import("write-file-atomic");
  await writeFileAtomicLib(absPath, content, { fsync: true });
}
