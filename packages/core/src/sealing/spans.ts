import { EngramError } from "../errors.js";
import {
  PRIVATE_CLOSE,
  type PrivateSpan,
  privateSpans,
  SEALED_PRIVATE_OPEN,
  unclosedSpanWarning,
} from "../workspace/privacy.js";
import { decryptBytes, encryptBytes } from "./cipher.js";
import type { SealKey } from "./keys.js";

/** What stands in for a sealed span's ciphertext in the index and in snippets. */
export const SEALED_MARK = "[sealed]";

/** The first bytes of every age v1 file. */
const AGE_MAGIC = "age-encryption.org/v1\n";
const OPEN_RE = /^<!--\s*engram:private\s+sealed\s*-->/i;
const CLOSE_RE = /<!--\s*\/\s*engram:private(?:\s+sealed)?\s*-->$/i;
const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A private span sealed in place: the opening marker says `sealed`, then the span's own bytes
 * (markers included) encrypted with age, as one line of base64 (the binary age file: what
 * `base64 -d | age -d -i key.txt` reads), then the span's line breaks, then the closing marker.
 * The span keeps its line count, so every other line of the file keeps its number; an inline
 * span stays inline.
 */
export function sealedSpanText(ageFile: Uint8Array, lineBreaks: string): string {
  return `${SEALED_PRIVATE_OPEN}${Buffer.from(ageFile).toString("base64")}${lineBreaks}${PRIVATE_CLOSE}`;
}

/** True when `text` holds a private span sealed in place. */
export function hasSealedSpans(text: string): boolean {
  return /engram:private\s+sealed/i.test(text) && privateSpans(text).some((s) => s.sealed);
}

/**
 * `text` with each sealed span's ciphertext replaced by `mark` ({@link SEALED_MARK}), its markers
 * and line breaks kept: what the indexer chunks (the span stays a private span, main scope only;
 * its ciphertext is no text to search, and nothing else of it is known without the key).
 */
export function maskSealedSpans(text: string, mark: string = SEALED_MARK): string {
  if (!/engram:private\s+sealed/i.test(text)) return text;
  const spans = privateSpans(text).filter((s) => s.sealed);
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const s of spans) {
    const { open, close } = markersOf(text, s);
    const inner = text.slice(s.start + open.length, s.end - close.length);
    out += `${text.slice(at, s.start)}${open}${mark}${lineBreaks(inner)}${close}`;
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * The text of a file as stored: `readUtf8` drops a leading BOM from its text, so a file rewritten
 * from that text would lose it; this puts it back.
 */
export function storedText(text: string, bytes: Uint8Array): string {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? `\uFEFF${text}` : text;
}

/** What changing the spans of one text did. */
export interface SpanChange {
  /** The new text (the same string when nothing changed). */
  text: string;
  /** Spans sealed, opened or re-sealed. */
  changed: number;
  /** Spans left as they were (already in the asked state). */
  kept: number;
}

/**
 * `text` with each plain private span sealed to `key`, each checked to open to its exact bytes.
 * Spans already sealed are kept.
 *
 * @throws EngramError `FILE_INVALID` for a span never closed (sealing it would change where it
 * ends) and for a span marked sealed that holds no age ciphertext (it would stay readable).
 */
export async function sealSpansText(text: string, key: SealKey, what: string): Promise<SpanChange> {
  const spans = privateSpans(text);
  const warning = unclosedSpanWarning(what, spans);
  if (warning) {
    throw new EngramError("FILE_INVALID", `${warning}; nothing was sealed`, {
      hint: `add ${PRIVATE_CLOSE} where the span should end, then seal again`,
    });
  }
  return rewriteSpans(text, spans, async (span, raw) => {
    if (span.sealed) {
      ageFileOf(text, span, what); // refuses a span marked sealed whose content is plain
      return null;
    }
    const ageFile = await encryptBytes(Buffer.from(raw, "utf8"), [key.recipient]);
    const back = await decryptBytes(ageFile, key, what);
    if (Buffer.compare(Buffer.from(back), Buffer.from(raw, "utf8")) !== 0) {
      throw new EngramError(
        "FILE_INVALID",
        `${what}:${span.startLine}: the sealed span did not open`,
        {
          hint: "nothing was changed; report this as a bug",
        },
      );
    }
    return sealedSpanText(ageFile, lineBreaks(raw));
  });
}

/**
 * `text` with each sealed span opened with `key`: the span's exact original bytes.
 *
 * @throws EngramError `SEAL_KEY_WRONG` when `key` does not open a span; `FILE_INVALID` for a
 * damaged one.
 */
export async function unsealSpansText(
  text: string,
  key: SealKey,
  what: string,
): Promise<SpanChange> {
  return rewriteSpans(text, privateSpans(text), async (span) =>
    span.sealed ? openSpan(text, span, key, what) : null,
  );
}

/**
 * `text` with each sealed span moved to `newKey`: opened with `both` (old or new), encrypted to
 * the new key, checked to open with it alone. Spans the new key already opens are kept.
 */
export async function resealSpansText(
  text: string,
  both: SealKey,
  newKey: SealKey,
  what: string,
): Promise<SpanChange> {
  return rewriteSpans(text, privateSpans(text), async (span) => {
    if (!span.sealed) return null;
    const ageFile = ageFileOf(text, span, what);
    const onNew = await decryptBytes(ageFile, newKey, what).catch(() => null);
    if (onNew) return null;
    const plain = await decryptBytes(ageFile, both, `${what}:${span.startLine}`);
    const moved = await encryptBytes(plain, [newKey.recipient]);
    const check = await decryptBytes(moved, newKey, what);
    if (Buffer.compare(Buffer.from(check), Buffer.from(plain)) !== 0) {
      throw new EngramError(
        "FILE_INVALID",
        `${what}:${span.startLine}: the re-sealed span did not open`,
        {
          hint: "nothing was changed for this file; report this as a bug",
        },
      );
    }
    const raw = text.slice(span.start, span.end);
    return sealedSpanText(moved, lineBreaks(raw));
  });
}

/**
 * The sealed spans of `text` that `key` cannot open (all of them without a key; a damaged one
 * counts as not opening). For the audit: it says which spans cannot be read, never what they hold.
 */
export async function sealedSpansKeyCannotOpen(
  text: string,
  key: SealKey | null,
  what: string,
): Promise<PrivateSpan[]> {
  if (!hasSealedSpans(text)) return [];
  const out: PrivateSpan[] = [];
  for (const span of privateSpans(text)) {
    if (!span.sealed) continue;
    let opens = false;
    if (key) {
      try {
        await decryptBytes(ageFileOf(text, span, what), key, what);
        opens = true;
      } catch {
        // another key, or a damaged span: it cannot be read
      }
    }
    if (!opens) out.push(span);
  }
  return out;
}

/** The original text of a sealed span. */
async function openSpan(text: string, span: PrivateSpan, key: SealKey, what: string) {
  const where = `${what}:${span.startLine}`;
  const plain = await decryptBytes(
    ageFileOf(text, span, what),
    key,
    `the private span at ${where}`,
  );
  let opened: string;
  try {
    opened = new TextDecoder("utf-8", { fatal: true }).decode(plain);
  } catch {
    throw damaged(where);
  }
  return opened;
}

/** The binary age file a sealed span holds. */
function ageFileOf(text: string, span: PrivateSpan, what: string): Uint8Array {
  const where = `${what}:${span.startLine}`;
  if (!span.closed) throw damaged(where);
  const { open, close } = markersOf(text, span);
  const payload = text.slice(span.start + open.length, span.end - close.length).trim();
  if (!BASE64_RE.test(payload)) throw damaged(where);
  const bytes = Buffer.from(payload, "base64");
  if (!bytes.subarray(0, AGE_MAGIC.length).equals(Buffer.from(AGE_MAGIC))) throw damaged(where);
  return new Uint8Array(bytes);
}

function damaged(where: string): EngramError {
  return new EngramError(
    "FILE_INVALID",
    `${where}: a private span is marked sealed but holds no age ciphertext`,
    {
      hint: "restore the span from version control or a backup, or remove `sealed` from its opening marker if its text is meant to be plain",
    },
  );
}

/** The opening and closing markers of a span, as written (a span never closed has none). */
function markersOf(text: string, span: PrivateSpan): { open: string; close: string } {
  const raw = text.slice(span.start, span.end);
  const open = OPEN_RE.exec(raw)?.[0] ?? "";
  const close = span.closed ? (CLOSE_RE.exec(raw)?.[0] ?? "") : "";
  return { open, close };
}

/** The line-break characters of `text`, in order (so a CRLF span keeps its CRLFs). */
function lineBreaks(text: string): string {
  return text.replace(/[^\r\n]/g, "");
}

/** `text` with each span `change` returns a replacement for replaced. */
async function rewriteSpans(
  text: string,
  spans: readonly PrivateSpan[],
  change: (span: PrivateSpan, raw: string) => Promise<string | null>,
): Promise<SpanChange> {
  let out = "";
  let at = 0;
  let changed = 0;
  let kept = 0;
  for (const span of spans) {
    const raw = text.slice(span.start, span.end);
    const replacement = await change(span, raw);
    if (replacement === null) {
      kept++;
      continue;
    }
    out += `${text.slice(at, span.start)}${replacement}`;
    at = span.end;
    changed++;
  }
  return changed ? { text: out + text.slice(at), changed, kept } : { text, changed: 0, kept };
}
