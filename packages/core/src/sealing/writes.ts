import { open } from "node:fs/promises";
import type { EngramConfig } from "../config/schema.js";
import { isEngramError } from "../errors.js";
import type { AppendResult } from "../workspace/append.js";
import { isSensitiveFile, privateSpans } from "../workspace/privacy.js";
import { readUtf8 } from "../workspace/read.js";
import { resolveMemoryPath } from "../workspace/sandbox.js";
import { sealFile, unsealFile } from "./seal-file.js";
import { sealSpansFile } from "./seal-spans.js";
import type { SealingSession } from "./session.js";

/** What a write through sealing needs of its memory. */
export interface SealedWriteParts {
  workspace: string;
  config: EngramConfig;
  sealing: SealingSession;
}

/**
 * Runs `append` (an append to the memory file `rel`) so that sealing holds:
 *
 * - When `rel` is sealed, the append is refused as it is (`SEALED_FILE`). With the key, the file
 *   is opened (unsealed, atomically), the append made, and the file sealed again — even when the
 *   append failed; without the key the refusal stands.
 * - With `privacy.sealSpans` and a key, the private spans of the file written are sealed in place
 *   (unless one is never closed: then the file is left as it is).
 * - After a write to a file marked `sensitive: true`, with a key configured and
 *   `privacy.autoSeal` on (the default), the file is sealed at once.
 *
 * Each step is one atomic replace, so a crash leaves the file sealed or plain, never half.
 */
export async function appendThroughSealing(
  parts: SealedWriteParts,
  rel: string,
  append: () => Promise<AppendResult>,
): Promise<AppendResult> {
  const options = { extraPaths: parts.config.extraPaths, maxBytes: parts.config.sync.maxFileBytes };
  let result: AppendResult;
  try {
    result = await append();
  } catch (error) {
    if (!isEngramError(error, "SEALED_FILE")) throw error;
    const key = await parts.sealing.key();
    if (!key) throw error;
    await unsealFile(parts.workspace, rel, key, options);
    try {
      result = await append();
    } finally {
      await sealFile(parts.workspace, rel, key, options);
    }
    return result;
  }
  if (parts.config.privacy.sealSpans) await sealSpansAfterWrite(parts, result.path, options);
  if (parts.config.privacy.autoSeal && (await isSensitiveOnDisk(parts, result.path))) {
    const key = await parts.sealing.key().catch(() => null);
    if (key) await sealFile(parts.workspace, result.path, key, options);
  }
  return result;
}

/** Seals the plain private spans of `rel` in place when a key is configured and all are closed. */
async function sealSpansAfterWrite(
  parts: SealedWriteParts,
  rel: string,
  options: { extraPaths: readonly string[]; maxBytes: number },
): Promise<void> {
  const key = await parts.sealing.key().catch(() => null);
  if (!key) return;
  let text: string;
  try {
    const file = await resolveMemoryPath(parts.workspace, rel, { extraPaths: options.extraPaths });
    ({ text } = await readUtf8(file.absPath, { maxBytes: options.maxBytes }));
  } catch {
    return;
  }
  const spans = privateSpans(text);
  if (spans.some((s) => !s.closed) || !spans.some((s) => !s.sealed)) return;
  await sealSpansFile(parts.workspace, rel, key, options);
}

/** True when the file's front matter marks it sensitive (only its head is read). */
async function isSensitiveOnDisk(parts: SealedWriteParts, rel: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    const file = await resolveMemoryPath(parts.workspace, rel, {
      extraPaths: parts.config.extraPaths,
    });
    handle = await open(file.absPath, "r");
    const head = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString("utf8");
    return text.startsWith("---") && isSensitiveFile(text);
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
