import { EngramError } from "../errors.js";

/** Letters (any script, CJK included), digits and marks; then also `.`, `_` and `-`. */
const NAME_RE = /^[\p{L}\p{N}][\p{L}\p{N}\p{M}._-]*$/u;
/** Longest id or domain name, in code points. */
export const MAX_NAME_LENGTH = 64;

/**
 * `value` when it is a safe single path segment — a project id, knowledge domain, session or task
 * id: starts with a letter or digit (any script), then letters, digits, `.`, `_`, `-`; at most
 * {@link MAX_NAME_LENGTH} characters. No `/`, `\`, leading dot or `..`, so it can never leave its
 * folder.
 *
 * @throws EngramError `INVALID_ARGUMENT` naming `kind` and an example of a good value.
 */
export function assertName(kind: string, value: unknown, example: string): string {
  const ok =
    typeof value === "string" &&
    NAME_RE.test(value) &&
    Array.from(value).length <= MAX_NAME_LENGTH &&
    !value.includes("..");
  if (!ok) {
    throw new EngramError("INVALID_ARGUMENT", `${kind} ${JSON.stringify(value)} is not allowed`, {
      hint: `use letters, digits, ".", "_" or "-" (at most ${MAX_NAME_LENGTH}, starting with a letter or digit), e.g. "${example}"`,
    });
  }
  return value;
}

/** Longest slug, in code points. */
const MAX_SLUG_LENGTH = 60;

/**
 * A file-name slug of `title`: NFKC, lower case, every run of characters other than letters,
 * digits and marks (any script — `数据库迁移` stays `数据库迁移`) replaced by `-`, trimmed, at most
 * 60 characters. `fallback` when nothing is left.
 */
export function slugify(title: string, fallback = "untitled"): string {
  const runs = title
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  const slug = Array.from(runs).slice(0, MAX_SLUG_LENGTH).join("").replace(/-+$/, "");
  return slug === "" ? fallback : slug;
}

/**
 * `value` as a one-line, non-empty title (trimmed; at most `max` characters).
 *
 * @throws EngramError `INVALID_ARGUMENT`.
 */
export function assertTitle(kind: string, value: unknown, max = 200): string {
  const title = typeof value === "string" ? value.trim() : "";
  if (title === "" || /[\r\n]/.test(title) || Array.from(title).length > max) {
    throw new EngramError("INVALID_ARGUMENT", `${kind} must be one non-empty line`, {
      hint: `pass a short ${kind} of at most ${max} characters, without line breaks`,
    });
  }
  return title;
}

/**
 * `value` as non-empty Markdown text (trailing whitespace removed).
 *
 * @throws EngramError `INVALID_ARGUMENT`.
 */
export function assertText(kind: string, value: unknown): string {
  const text = typeof value === "string" ? value.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd() : "";
  if (text === "") {
    throw new EngramError("INVALID_ARGUMENT", `${kind} is empty`, {
      hint: `pass the ${kind} as a non-empty string`,
    });
  }
  return text;
}
