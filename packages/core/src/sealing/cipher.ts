import { EngramError } from "../errors.js";
import type { SealKey } from "./keys.js";

type AgeModule = typeof import("age-encryption");
let loaded: Promise<AgeModule> | undefined;

/** The age implementation (`age-encryption`), loaded on first use. */
export function ageLibrary(): Promise<AgeModule> {
  loaded ??= import("age-encryption");
  return loaded;
}

/** `bytes` encrypted to `recipients` as an age file (binary). */
export async function encryptBytes(
  bytes: Uint8Array,
  recipients: readonly string[],
): Promise<Uint8Array> {
  const age = await ageLibrary();
  const encrypter = new age.Encrypter();
  for (const r of recipients) encrypter.addRecipient(r);
  return encrypter.encrypt(bytes);
}

/** `bytes` encrypted to `recipients` as an armored age file. */
export async function encryptArmored(
  bytes: Uint8Array,
  recipients: readonly string[],
): Promise<string> {
  const age = await ageLibrary();
  return age.armor.encode(await encryptBytes(bytes, recipients));
}

/**
 * The bytes of an armored age file, opened with `key`.
 *
 * @throws EngramError `SEAL_KEY_WRONG` when none of the key's identities opens it (naming `what`,
 * never the key), `FILE_INVALID` when the armor is damaged.
 */
export async function decryptArmored(
  armored: string,
  key: SealKey,
  what: string,
): Promise<Uint8Array> {
  const age = await ageLibrary();
  let file: Uint8Array;
  try {
    file = age.armor.decode(armored);
  } catch {
    throw new EngramError("FILE_INVALID", `${what}: the sealed block is damaged`, {
      hint: "restore the file from version control or a backup",
    });
  }
  return decryptBytes(file, key, what);
}

/**
 * The bytes of an age file (binary), opened with `key`.
 *
 * @throws EngramError `SEAL_KEY_WRONG` when none of the key's identities opens it (naming `what`,
 * never the key).
 */
export async function decryptBytes(
  file: Uint8Array,
  key: SealKey,
  what: string,
): Promise<Uint8Array> {
  const age = await ageLibrary();
  const decrypter = new age.Decrypter();
  for (const identity of key.identities) decrypter.addIdentity(identity);
  try {
    return await decrypter.decrypt(file);
  } catch {
    throw new EngramError(
      "SEAL_KEY_WRONG",
      `${what} was sealed with another key than ${key.source}'s`,
      {
        hint: "set ENGRAM_KEY or ENGRAM_KEY_FILE to the key it was sealed with (see its recipients)",
      },
    );
  }
}
