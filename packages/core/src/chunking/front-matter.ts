const OPEN = /^---[ \t]*$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;

/**
 * The 0-based index of the line closing a YAML front matter block that opens with `---` on the
 * first line, or -1 when the file has none (no `---` on line 1, or it is never closed). Detected
 * before Markdown parsing, which would otherwise read it as a rule and a setext heading.
 */
export function frontMatterEnd(lines: readonly string[]): number {
  if (lines.length < 2 || !OPEN.test(lines[0] as string)) return -1;
  for (let i = 1; i < lines.length; i++) {
    if (CLOSE.test(lines[i] as string)) return i;
  }
  return -1;
}
