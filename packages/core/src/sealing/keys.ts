import { readFile, realpath } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { isSameOrInside } from "../workspace/paths.js";
import { ageLibrary } from "./cipher.js";

/**
 * The key that seals and opens files: age identities (secret, never printed or logged) and the
 * recipient new seals are encrypted to.
 */
export interface SealKey {
  /** Recipient (public key, `age1…`) of the first identity: what new seals are encrypted to. */
  readonly recipient: string;
  /** Recipients of every identity held: a sealed file to any of them can be opened. */
  readonly recipients: readonly string[];
  /** Where the key came from (`ENGRAM_KEY` or `ENGRAM_KEY_FILE`), for messages. */
  readonly source: string;
  /** The age identities (`AGE-SECRET-KEY-1…`). */
  readonly identities: readonly string[];
}

/** The environment variables one key is read from. */
export interface SealKeyVariables {
  /** An age identity (or several, one a line). Default `ENGRAM_KEY`. */
  key: string;
  /** A file outside the workspace holding identities, or a passphrase-protected age file of them. */
  file: string;
  /** The passphrase of a protected key file. */
  passphrase: string;
}

/** The variables of the workspace's key. */
export const SEAL_KEY_VARIABLES: SealKeyVariables = {
  key: "ENGRAM_KEY",
  file: "ENGRAM_KEY_FILE",
  passphrase: "ENGRAM_PASSPHRASE",
};

/** The variables of the key a rotation moves sealed files to. */
export const NEW_SEAL_KEY_VARIABLES: SealKeyVariables = {
  key: "ENGRAM_NEW_KEY",
  file: "ENGRAM_NEW_KEY_FILE",
  passphrase: "ENGRAM_NEW_PASSPHRASE",
};

const IDENTITY_RE = /^AGE-SECRET-KEY-(?:PQ-)?1[0-9A-Z]+$/;

/**
 * The key configured in `env`, or null when none is. `ENGRAM_KEY` holds an age identity;
 * `ENGRAM_KEY_FILE` names a file outside the workspace holding identities (age-keygen's format),
 * or an age file encrypting them with a passphrase (`ENGRAM_PASSPHRASE`). No message ever quotes
 * key material.
 *
 * @throws EngramError `SEAL_KEY_INVALID` for a malformed key, a key file inside the workspace, a
 * missing or wrong passphrase; `SEAL_KEY_MISSING` for a key file that does not exist.
 */
export async function resolveSealKey(
  workspace: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  vars: SealKeyVariables = SEAL_KEY_VARIABLES,
): Promise<SealKey | null> {
  const inline = env[vars.key]?.trim();
  if (inline) return keyFrom(inline, vars.key);
  const file = env[vars.file]?.trim();
  if (!file) return null;
  const abs = path.resolve(file);
  let real: string;
  try {
    real = await realpath(abs);
  } catch {
    throw new EngramError("SEAL_KEY_MISSING", `${vars.file} names ${abs}, which does not exist`, {
      hint: "create it with `engram keygen --out <file>` (outside the workspace), or fix the path",
    });
  }
  const ws = await realpath(workspace).catch(() => path.resolve(workspace));
  if (isSameOrInside(ws, real)) {
    throw new EngramError(
      "SEAL_KEY_INVALID",
      `${vars.file} points inside the workspace (${abs}): the key would sit beside what it protects`,
      { hint: "move the key file outside the workspace (e.g. ~/.config/engram/key.txt)" },
    );
  }
  const bytes = await readFile(real);
  const text = bytes.toString("utf8");
  if (
    text.startsWith("-----BEGIN AGE ENCRYPTED FILE-----") ||
    text.startsWith("age-encryption.org/")
  ) {
    const passphrase = env[vars.passphrase];
    if (!passphrase) {
      throw new EngramError("SEAL_KEY_INVALID", `${vars.file} is protected by a passphrase`, {
        hint: `set ${vars.passphrase} to its passphrase`,
      });
    }
    const age = await ageLibrary();
    const decrypter = new age.Decrypter();
    decrypter.addPassphrase(passphrase);
    const sealed = text.startsWith("-----BEGIN") ? age.armor.decode(text) : new Uint8Array(bytes);
    let opened: string;
    try {
      opened = await decrypter.decrypt(sealed, "text");
    } catch {
      throw new EngramError("SEAL_KEY_INVALID", `${vars.passphrase} does not open ${vars.file}`, {
        hint: "check the passphrase",
      });
    }
    return keyFrom(opened, vars.file);
  }
  return keyFrom(text, vars.file);
}

/** A key from age-keygen-style text: identities one a line, `#` comments and blank lines skipped. */
async function keyFrom(text: string, source: string): Promise<SealKey> {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  if (lines.length === 0 || !lines.every((l) => IDENTITY_RE.test(l))) {
    throw new EngramError("SEAL_KEY_INVALID", `${source} does not hold an age identity`, {
      hint: "generate one with `engram keygen` (it starts with AGE-SECRET-KEY-1)",
    });
  }
  const age = await ageLibrary();
  const recipients: string[] = [];
  for (const identity of lines) {
    try {
      recipients.push(await age.identityToRecipient(identity));
    } catch {
      throw new EngramError("SEAL_KEY_INVALID", `${source} holds a malformed age identity`, {
        hint: "generate one with `engram keygen`",
      });
    }
  }
  return {
    recipient: recipients[0] as string,
    recipients,
    source,
    identities: lines,
  };
}

/** A new key: the identity file's text (age-keygen's format) and its recipient. */
export interface GeneratedSealKey {
  /** Write this to a file outside the workspace (mode 0600), then point ENGRAM_KEY_FILE at it. */
  fileText: string;
  recipient: string;
}

/**
 * Generate a key. With `passphrase`, the identity file is itself an armored age file encrypted
 * with it (scrypt, work factor 2^15: a second or two to open, once per process).
 */
export async function generateSealKey(
  options: { passphrase?: string; now?: Date } = {},
): Promise<GeneratedSealKey> {
  const age = await ageLibrary();
  const identity = await age.generateX25519Identity();
  const recipient = await age.identityToRecipient(identity);
  const plain = `# created: ${(options.now ?? new Date()).toISOString()}\n# public key: ${recipient}\n${identity}\n`;
  if (!options.passphrase) return { fileText: plain, recipient };
  const encrypter = new age.Encrypter();
  encrypter.setPassphrase(options.passphrase);
  encrypter.setScryptWorkFactor(15);
  return { fileText: age.armor.encode(await encrypter.encrypt(plain)), recipient };
}
