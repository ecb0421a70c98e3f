import { open } from "node:fs/promises";
import { scanWorkspace } from "../workspace/scan.js";
import { looksSealed } from "./format.js";

/** A sealed file found on disk. */
export interface SealedFileInfo {
  /** Index key (workspace-relative POSIX, or absolute for an extra path outside). */
  path: string;
  absPath: string;
}

/** Bytes read from the head of a file to tell whether it is sealed (the placeholder's header). */
const HEAD_BYTES = 4096;

/**
 * The workspace's sealed files (placeholders), from the files themselves: every memory file whose
 * head is a sealed placeholder's.
 */
export async function listSealedFiles(
  workspace: string,
  extraPaths: readonly string[] = [],
): Promise<SealedFileInfo[]> {
  const { files } = await scanWorkspace({ workspace, extraPaths });
  const sealed: SealedFileInfo[] = [];
  for (const file of files) {
    if (await headLooksSealed(file.absPath))
      sealed.push({ path: file.path, absPath: file.absPath });
  }
  return sealed;
}

async function headLooksSealed(absPath: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(absPath, "r");
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return looksSealed(buffer.subarray(0, bytesRead).toString("utf8"));
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
