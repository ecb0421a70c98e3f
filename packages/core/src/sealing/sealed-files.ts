import { open, readFile } from "node:fs/promises";
import { scanWorkspace } from "../workspace/scan.js";
import { looksSealed } from "./format.js";
import { hasSealedSpans } from "./spans.js";

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

/**
 * The workspace's sealed files and the files holding private spans sealed in place, each once
 * (what a key rotation must re-seal). Every memory file is read whole, once.
 */
export async function listFilesWithSeals(
  workspace: string,
  extraPaths: readonly string[] = [],
): Promise<SealedFileInfo[]> {
  const { files } = await scanWorkspace({ workspace, extraPaths });
  const found: SealedFileInfo[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file.absPath, "utf8");
    } catch {
      continue;
    }
    if (looksSealed(text) || hasSealedSpans(text)) {
      found.push({ path: file.path, absPath: file.absPath });
    }
  }
  return found;
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
