import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { EngramError, isEngramError } from "../errors.js";
import { writeFileAtomic } from "../workspace/atomic.js";
import { INDEX_DIR } from "../workspace/layout.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { DEFAULT_MAX_FILE_BYTES, readUtf8 } from "../workspace/read.js";
import { resolveMemoryPath } from "../workspace/sandbox.js";
import { decryptArmored, encryptArmored } from "./cipher.js";
import { parseSealed, sealedPlaceholder } from "./format.js";
import type { SealKey } from "./keys.js";
import { fileLockName } from "./seal-file.js";
import { listFilesWithSeals } from "./sealed-files.js";
import { hasSealedSpans, resealSpansText, storedText } from "./spans.js";

/**
 * `.engram/sealing/rotation.json`: written before the first file is re-sealed and removed after
 * the last, so an interrupted rotation is finished by the next run. It holds paths and public
 * recipients only — never a key, never plaintext.
 */
export interface RotationJournal {
  version: 1;
  /** The recipient every file is being moved to. */
  to: string;
  startedAt: string;
  /** The sealed files found when the rotation started. */
  files: string[];
}

/** What a rotation did. */
export interface RotationOutcome {
  /** Files re-sealed to the new key by this run. */
  rotated: string[];
  /** Files already sealed to the new key (e.g. by the run a crash interrupted). */
  already: string[];
  /** True when this run finished a rotation an earlier run had started. */
  resumed: boolean;
}

/** Options of {@link rotateSealKey}. */
export interface RotationOptions {
  extraPaths?: readonly string[];
  maxBytes?: number;
  now?: Date;
  /** @internal Called after each file is re-sealed; throwing simulates a crash (tests). */
  onFile?: (path: string) => void;
}

/** Where the rotation journal lives. */
export function rotationJournalPath(workspace: string): string {
  return path.join(workspace, INDEX_DIR, "sealing", "rotation.json");
}

/**
 * Re-seal every sealed file of the workspace to `newKey`. Each file is opened with either key,
 * encrypted to the new one, checked to open with the new key alone, and replaced by one atomic
 * rename, so at any moment each file is sealed to the old key or to the new one, whole. A journal
 * lists the files first; a run killed midway is finished by the next (which needs both keys until
 * it is done). One rotation runs at a time per workspace.
 *
 * @throws EngramError `SEAL_KEY_WRONG` when a file opens with neither key (the rotation stops;
 * files done so far stay done and the journal stays); `LIFECYCLE_CONFLICT` when an unfinished
 * rotation targets another key.
 */
export async function rotateSealKey(
  workspace: string,
  oldKey: SealKey | null,
  newKey: SealKey,
  options: RotationOptions = {},
): Promise<RotationOutcome> {
  return withWorkspaceLock(workspace, "seal-rotation", async () => {
    const journalPath = rotationJournalPath(workspace);
    const existing = await readJournal(journalPath);
    if (existing && existing.to !== newKey.recipient) {
      throw new EngramError(
        "LIFECYCLE_CONFLICT",
        `an unfinished key rotation moves sealed files to ${existing.to}, not to ${newKey.recipient}`,
        { hint: "finish it first: run engram rekey with ENGRAM_NEW_KEY(_FILE) set to that key" },
      );
    }
    const files =
      existing?.files ??
      (await listFilesWithSeals(workspace, options.extraPaths ?? [])).map((f) => f.path);
    if (!existing) {
      await mkdir(path.dirname(journalPath), { recursive: true });
      const journal: RotationJournal = {
        version: 1,
        to: newKey.recipient,
        startedAt: (options.now ?? new Date()).toISOString(),
        files,
      };
      await writeFileAtomic(journalPath, `${JSON.stringify(journal, null, 2)}\n`);
    }
    const both: SealKey = {
      recipient: newKey.recipient,
      recipients: [...newKey.recipients, ...(oldKey?.recipients ?? [])],
      source: oldKey ? `${oldKey.source} or ${newKey.source}` : newKey.source,
      identities: [...newKey.identities, ...(oldKey?.identities ?? [])],
    };
    const outcome: RotationOutcome = { rotated: [], already: [], resumed: Boolean(existing) };
    for (const rel of files) {
      const done = await rotateOne(workspace, rel, both, newKey, options);
      if (done === "rotated") outcome.rotated.push(rel);
      else if (done === "already") outcome.already.push(rel);
      options.onFile?.(rel);
    }
    await rm(journalPath, { force: true });
    return outcome;
  });
}

async function rotateOne(
  workspace: string,
  rel: string,
  both: SealKey,
  newKey: SealKey,
  options: RotationOptions,
): Promise<"rotated" | "already" | "gone"> {
  let file: Awaited<ReturnType<typeof resolveMemoryPath>>;
  try {
    file = await resolveMemoryPath(workspace, rel, { extraPaths: options.extraPaths ?? [] });
  } catch (error) {
    if (isEngramError(error, "FILE_NOT_FOUND")) return "gone";
    throw error;
  }
  return withWorkspaceLock(workspace, fileLockName(file.path), async () => {
    let text: string;
    let bytes: Buffer;
    try {
      ({ text, bytes } = await readUtf8(file.absPath, {
        maxBytes: options.maxBytes ?? DEFAULT_MAX_FILE_BYTES,
      }));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
      throw error;
    }
    const sealed = parseSealed(text);
    if (!sealed) {
      // Private spans sealed in place: each moved to the new key (none left: unsealed meanwhile).
      if (!hasSealedSpans(text)) return "gone";
      const moved = await resealSpansText(storedText(text, bytes), both, newKey, file.path);
      if (!moved.changed) return "already";
      await writeFileAtomic(file.absPath, Buffer.from(moved.text, "utf8"));
      return "rotated";
    }
    if (sealed.recipients.length === 1 && sealed.recipients[0] === newKey.recipient) {
      return "already";
    }
    let plain = await decryptArmored(sealed.armored, both, file.path);
    const inner = new TextDecoder("utf-8", { fatal: false }).decode(plain);
    if (hasSealedSpans(inner)) {
      // Spans sealed before the whole file was: they move to the new key too.
      const moved = await resealSpansText(inner, both, newKey, file.path);
      if (moved.changed) plain = Buffer.from(moved.text, "utf8");
    }
    const armored = await encryptArmored(plain, [newKey.recipient]);
    const check = await decryptArmored(armored, newKey, file.path);
    if (Buffer.compare(Buffer.from(check), Buffer.from(plain)) !== 0) {
      throw new EngramError("FILE_INVALID", `${file.path}: the re-sealed copy did not open`, {
        hint: "nothing was changed for this file; report this as a bug",
      });
    }
    await writeFileAtomic(
      file.absPath,
      sealedPlaceholder({ armored, recipients: [newKey.recipient] }),
    );
    return "rotated";
  });
}

async function readJournal(abs: string): Promise<RotationJournal | null> {
  try {
    const value = JSON.parse(await readFile(abs, "utf8")) as RotationJournal;
    return value && value.version === 1 && Array.isArray(value.files) ? value : null;
  } catch {
    return null;
  }
}
