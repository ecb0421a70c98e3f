import { readTexts } from "../workspace/read-texts.js";
import { scanWorkspace } from "../workspace/scan.js";
import { looksSealed } from "./format.js";
import { hasSealedSpans } from "./spans.js";

/** A sealed file found on disk. */
export interface SealedFileInfo {
  /** Index key (workspace-relative POSIX, or absolute for an extra path outside). */
  path: string;
  absPath: string;
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
  for await (const [file, { text }] of readTexts(files)) {
    if (looksSealed(text) || hasSealedSpans(text)) {
      found.push({ path: file.path, absPath: file.absPath });
    }
  }
  return found;
}
