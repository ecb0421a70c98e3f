import { EngramError } from "../errors.js";

/**
 * The `fallback` list as written: one provider id or several; `none` may only come last (it means
 * "keyword search from here on"); `auto` is not a fallback.
 *
 * @throws EngramError `CONFIG_INVALID` naming the problem.
 */
export function parseFallback(value: string | readonly string[], where?: string): string[] {
  const at = where ? `${where}: ` : "";
  const ids = (typeof value === "string" ? [value] : [...value])
    .map((s) => s.trim())
    .filter(Boolean);
  const none = ids.indexOf("none");
  if (none >= 0 && none < ids.length - 1) {
    throw new EngramError(
      "CONFIG_INVALID",
      `${at}"none" must be the last fallback (providers after it would never be tried)`,
      { hint: `write ${JSON.stringify(ids.slice(0, none + 1))}, or drop "none"` },
    );
  }
  if (ids.includes("auto")) {
    throw new EngramError("CONFIG_INVALID", `${at}"auto" is not a fallback provider`, {
      hint: 'name providers such as ["local", "gemini"], or leave fallback empty',
    });
  }
  return ids;
}
