import { isCjkUnit, tokensFromCounts } from "../text/tokens.js";

const NON_BLANK = /\S/;

/**
 * Cuts one line that is too long for a chunk into consecutive pieces of at most `limit` estimated
 * tokens, at code point boundaries (a surrogate pair is never split). Whitespace-only pieces are
 * dropped; the pieces and the dropped ones concatenate to the line.
 */
export function cutLongLine(line: string, limit: number): string[] {
  const pieces: string[] = [];
  let start = 0;
  let cjk = 0;
  let other = 0;
  for (let i = 0; i < line.length; ) {
    const code = line.charCodeAt(i);
    let width = 1;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < line.length) {
      const next = line.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) width = 2;
    }
    const isCjk = code >= 0x1100 && isCjkUnit(code);
    const nextCjk = isCjk ? cjk + 1 : cjk;
    const nextOther = isCjk ? other : other + 1;
    if (i > start && tokensFromCounts(nextCjk, nextOther) > limit) {
      push(pieces, line.slice(start, i));
      start = i;
      cjk = isCjk ? 1 : 0;
      other = isCjk ? 0 : 1;
    } else {
      cjk = nextCjk;
      other = nextOther;
    }
    i += width;
  }
  if (start < line.length) push(pieces, start === 0 ? line : line.slice(start));
  return pieces;
}

function push(pieces: string[], piece: string): void {
  if (NON_BLANK.test(piece)) pieces.push(piece);
}
