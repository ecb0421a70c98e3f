import { EngramError } from "../errors.js";
import { writeFileAtomic } from "../workspace/atomic.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { DEFAULT_MAX_FILE_BYTES, readUtf8 } from "../workspace/read.js";
import { resolveMemoryPath } from "../workspace/sandbox.js";
import { parseSealed } from "./format.js";
import type { SealKey } from "./keys.js";
import { fileLockName, type SealFileOptions, type SealOutcome } from "./seal-file.js";
import { type SpanChange, sealSpansText, storedText, unsealSpansText } from "./spans.js";

/** What sealing or unsealing the private spans of one file did. */
export interface SpanSealOutcome extends SealOutcome {
  /** Spans sealed (or opened) by this call; `changed` is true when it is above zero. */
  spans: number;
  /** True when the whole file is sealed: its spans are inside that seal, and were left alone. */
  wholeFileSealed?: boolean;
}

/**
 * Seal the private spans of a memory file in place: each `<!-- engram:private -->` … span becomes
 * `<!-- engram:private sealed -->` + its age ciphertext (one base64 line) + its line breaks + the
 * closing marker; the rest of the file stays plain and every line keeps its number. Like
 * {@link sealFile}: under the lock appends take, each span checked to open to its exact bytes,
 * and one atomic rename, so a crash leaves the file plain or sealed, whole.
 *
 * @throws EngramError `FILE_INVALID` for a span never closed (nothing is sealed); sandbox errors.
 */
export function sealSpansFile(
  workspace: string,
  requested: string,
  key: SealKey,
  options: SealFileOptions = {},
): Promise<SpanSealOutcome> {
  return rewriteFile(workspace, requested, options, async (text, what) => {
    const sealed = await sealSpansText(text, key, what);
    if (sealed.changed) {
      // The sealed text must open to the original bytes before it replaces them.
      const back = await unsealSpansText(sealed.text, key, what);
      if (back.text !== text) {
        throw new EngramError("FILE_INVALID", `${what}: the sealed spans did not open`, {
          hint: "nothing was changed; report this as a bug",
        });
      }
    }
    return sealed;
  });
}

/**
 * Open the sealed private spans of a memory file in place: each gives back its exact original
 * bytes (markers included), in one atomic rename.
 *
 * @throws EngramError `SEAL_KEY_WRONG` when `key` does not open a span (nothing is changed).
 */
export function unsealSpansFile(
  workspace: string,
  requested: string,
  key: SealKey,
  options: SealFileOptions = {},
): Promise<SpanSealOutcome> {
  return rewriteFile(workspace, requested, options, (text, what) =>
    unsealSpansText(text, key, what),
  );
}

async function rewriteFile(
  workspace: string,
  requested: string,
  options: SealFileOptions,
  change: (text: string, what: string) => Promise<SpanChange>,
): Promise<SpanSealOutcome> {
  const file = await resolveMemoryPath(workspace, requested, {
    extraPaths: options.extraPaths ?? [],
  });
  return withWorkspaceLock(workspace, fileLockName(file.path), async () => {
    const { text: decoded, bytes } = await readUtf8(file.absPath, {
      maxBytes: options.maxBytes ?? DEFAULT_MAX_FILE_BYTES,
    });
    const unchanged = { path: file.path, changed: false, bytes: bytes.length, spans: 0 };
    if (parseSealed(decoded)) return { ...unchanged, wholeFileSealed: true };
    const text = storedText(decoded, bytes);
    if (Buffer.compare(Buffer.from(text, "utf8"), bytes) !== 0) {
      throw new EngramError("INVALID_ENCODING", `${file.path} does not round-trip as UTF-8`, {
        hint: "nothing was changed; save the file as UTF-8",
      });
    }
    const result = await change(text, file.path);
    if (!result.changed) return unchanged;
    options.onStep?.("encrypted");
    await writeFileAtomic(file.absPath, Buffer.from(result.text, "utf8"));
    options.onStep?.("written");
    return { path: file.path, changed: true, bytes: bytes.length, spans: result.changed };
  });
}
