import { EngramError } from "../errors.js";
import { writeFileAtomic } from "../workspace/atomic.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { DEFAULT_MAX_FILE_BYTES, readUtf8 } from "../workspace/read.js";
import { resolveMemoryPath } from "../workspace/sandbox.js";
import { decryptArmored, encryptArmored } from "./cipher.js";
import { parseSealed, sealedPlaceholder } from "./format.js";
import type { SealKey } from "./keys.js";

/** Where a memory file is and how much of it may be read. */
export interface SealFileOptions {
  /** Extra Markdown folders/files (as in the config) that are memory too. */
  extraPaths?: readonly string[];
  /** Largest file handled. */
  maxBytes?: number;
  /** @internal Called between steps; throwing from it simulates a crash (tests). */
  onStep?: (step: "encrypted" | "written") => void;
}

/** What sealing or unsealing one file did. */
export interface SealOutcome {
  /** Index key of the file (as `engram get` and search results name it). */
  path: string;
  /** False when the file already was in the asked state. */
  changed: boolean;
  /** Size of the plaintext in bytes. */
  bytes: number;
}

/**
 * The lock a file's writers share: appends (`workspace/append`) take the same one, so a seal never
 * races an append into losing it.
 */
export function fileLockName(path: string): string {
  return `append:${path}`;
}

/**
 * Seal a memory file: its bytes are encrypted to `key` (age) and the file becomes a readable
 * placeholder holding the armored ciphertext. The ciphertext is opened and compared with the
 * original before the file is replaced, and the replacement is one atomic rename, so a crash
 * leaves the file plain or sealed, never half of either. Paths are as `engram get` takes them.
 *
 * @throws EngramError of the `memory_get` sandbox; `SEAL_KEY_*` for key problems.
 */
export async function sealFile(
  workspace: string,
  requested: string,
  key: SealKey,
  options: SealFileOptions = {},
): Promise<SealOutcome> {
  const file = await resolveMemoryPath(workspace, requested, {
    extraPaths: options.extraPaths ?? [],
  });
  return withWorkspaceLock(workspace, fileLockName(file.path), async () => {
    const { text, bytes } = await readUtf8(file.absPath, {
      maxBytes: options.maxBytes ?? DEFAULT_MAX_FILE_BYTES,
    });
    if (parseSealed(text)) return { path: file.path, changed: false, bytes: bytes.length };
    const armored = await encryptArmored(bytes, [key.recipient]);
    const back = await decryptArmored(armored, key, file.path);
    if (Buffer.compare(Buffer.from(back), bytes) !== 0) {
      throw new EngramError(
        "FILE_INVALID",
        `${file.path}: the sealed copy did not open to the original`,
        {
          hint: "nothing was changed; report this as a bug",
        },
      );
    }
    options.onStep?.("encrypted");
    await writeFileAtomic(
      file.absPath,
      sealedPlaceholder({ armored, recipients: [key.recipient] }),
    );
    options.onStep?.("written");
    return { path: file.path, changed: true, bytes: bytes.length };
  });
}

/**
 * Unseal a memory file: the placeholder is replaced (atomically) by the exact original bytes.
 *
 * @throws EngramError `SEAL_KEY_WRONG` when `key` does not open it; sandbox errors.
 */
export async function unsealFile(
  workspace: string,
  requested: string,
  key: SealKey,
  options: SealFileOptions = {},
): Promise<SealOutcome> {
  const file = await resolveMemoryPath(workspace, requested, {
    extraPaths: options.extraPaths ?? [],
  });
  return withWorkspaceLock(workspace, fileLockName(file.path), async () => {
    const { text, bytes } = await readUtf8(file.absPath, {
      maxBytes: options.maxBytes ?? DEFAULT_MAX_FILE_BYTES,
    });
    const sealed = parseSealed(text);
    if (!sealed) return { path: file.path, changed: false, bytes: bytes.length };
    const plain = await decryptArmored(sealed.armored, key, file.path);
    options.onStep?.("encrypted");
    await writeFileAtomic(file.absPath, Buffer.from(plain));
    options.onStep?.("written");
    return { path: file.path, changed: true, bytes: plain.length };
  });
}

/**
 * The plaintext of a sealed file's text, opened with `key`, or null when `text` is not sealed.
 *
 * @throws EngramError `SEAL_KEY_WRONG` when `key` does not open it.
 */
export async function openSealedText(
  text: string,
  key: SealKey,
  what: string,
): Promise<string | null> {
  const sealed = parseSealed(text);
  if (!sealed) return null;
  const plain = await decryptArmored(sealed.armored, key, what);
  return new TextDecoder("utf-8", { fatal: false }).decode(plain);
}
