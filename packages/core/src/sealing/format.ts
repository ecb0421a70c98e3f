import { readFrontMatter } from "../workspace/front-matter.js";

/** Front-matter key (and value) that marks a sealed placeholder. */
export const SEALED_KEY = "engram-sealed";
/** The one sealing format: age v1 (https://age-encryption.org), ASCII-armored. */
export const SEALED_FORMAT = "age-v1";

const BEGIN = "-----BEGIN AGE ENCRYPTED FILE-----";
const END = "-----END AGE ENCRYPTED FILE-----";

/** What a sealed placeholder holds: the armored age file and who it was sealed to. */
export interface SealedPayload {
  /** The ASCII-armored age file, `-----BEGIN AGE ENCRYPTED FILE-----` through its END line. */
  armored: string;
  /** The age recipients (public keys, `age1…`) it was encrypted to, as the placeholder says. */
  recipients: string[];
}

/**
 * The readable Markdown that stands in for a sealed file: front matter saying it is sealed (and
 * `sensitive: true`, so anything that reads it as Markdown keeps it in the main scope), a note on
 * how to open it, and the armored age file in a fenced block, which `age -d` also reads.
 */
export function sealedPlaceholder(payload: SealedPayload): string {
  const recipients = payload.recipients.map((r) => `  - ${r}`).join("\n");
  return [
    "---",
    `${SEALED_KEY}: ${SEALED_FORMAT}`,
    "sensitive: true",
    "recipients:",
    recipients,
    "---",
    "# Sealed memory",
    "",
    "This file is encrypted with age (https://age-encryption.org). engram searches it only in the",
    "main scope of a process that holds the key (`ENGRAM_KEY` or `ENGRAM_KEY_FILE`).",
    "`engram unseal <path>` restores the original file; `age -d -i <key file>` reads the block below.",
    "",
    "~~~age",
    payload.armored.trimEnd(),
    "~~~",
    "",
  ].join("\n");
}

/** Cheap test for a sealed placeholder (no YAML parsing): use before {@link parseSealed}. */
export function looksSealed(text: string): boolean {
  return text.startsWith("---") && text.includes(`${SEALED_KEY}:`) && text.includes(BEGIN);
}

/** The payload of a sealed placeholder, or null when `text` is not one. */
export function parseSealed(text: string): SealedPayload | null {
  if (!looksSealed(text)) return null;
  let data: Record<string, unknown>;
  try {
    ({ data } = readFrontMatter(text));
  } catch {
    return null;
  }
  if (data[SEALED_KEY] !== SEALED_FORMAT) return null;
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END, start);
  if (start < 0 || end < 0) return null;
  const recipients = Array.isArray(data.recipients)
    ? data.recipients.filter((r): r is string => typeof r === "string")
    : [];
  return { armored: `${text.slice(start, end + END.length)}\n`, recipients };
}
