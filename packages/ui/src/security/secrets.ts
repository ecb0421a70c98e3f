import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The secrets of one `engram ui` run, made fresh at start and never written anywhere:
 *
 * - `token`: printed in the URL on the first line; a script sends it as `Authorization: Bearer`,
 *   a browser brings it once in `?token=` and gets the session cookie in exchange.
 * - `session`: the cookie's value (HttpOnly, SameSite=Strict), so the token leaves the address bar.
 * - `csrf`: derived from the session; every write made with the cookie must carry it (form field
 *   `_csrf` or header `X-CSRF-Token`). A script using the bearer token needs none: browsers never
 *   add that header on their own.
 */
export interface UiSecrets {
  readonly token: string;
  readonly session: string;
  readonly csrf: string;
}

/** New random secrets (256 bits each), or the given token with a fresh session. */
export function createSecrets(token?: string): UiSecrets {
  const session = randomBytes(32).toString("base64url");
  return {
    token: token ?? randomBytes(32).toString("base64url"),
    session,
    csrf: createHmac("sha256", session).update("engram-ui csrf").digest("base64url"),
  };
}

/** Constant-time comparison of a presented secret with the expected one. */
export function sameSecret(presented: string | undefined | null, expected: string): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
