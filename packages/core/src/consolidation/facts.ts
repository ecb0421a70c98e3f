/**
 * The facts a text holds, as consolidation checks them: an operation may not drop a fact the lines
 * it replaces hold, nor state one its cited lines do not.
 *
 * A fact is one of:
 *
 * - `date`: `2026-03-05`, `2026/3/5`, `2026年3月5日`, `3月5日`, `March 5, 2026`, `5 Mar` — compared
 *   in canonical form (`2026-03-05`, or `03-05` without a year), so `March 5, 2026` holds
 *   `2026-03-05`; a time `10:30` (`10:30`).
 * - `number`: any other run of digits, with its decimals and a `%` (`5433`, `3.5`, `20%`; `5,000`
 *   is `5000`). Compared as whole numbers: `15` does not hold `5`.
 * - `term`: a compound identifier (letters or digits joined by `. _ - / : @`, holding a letter:
 *   `sqlite-vec`, `v2.3`, `ops/rollback.md`, `lin@example.com`), a URL, a `code span`, or a quoted
 *   span (`"…"`, `“…”`, `「…」`, `『…』`, `《…》`). Compared case-insensitively as a whole word (CJK:
 *   as a substring).
 * - `name`: a capitalised Latin word (`Lin`, `Postgres`, `API`) other than a common function word
 *   (`The`, `We`, `In`, …; {@link NOT_NAMES}). Compared case-insensitively as a whole word.
 * - `negation`: the text negates (`not`, `no`, `never`, `n't`, `without`, …; `不`, `没`, `别`,
 *   `未`, `勿`). A text that negates holds it only if the other text negates too.
 *
 * Markdown markup (list markers, emphasis, heading marks) and HTML comments are ignored.
 */
export interface Fact {
  kind: "date" | "number" | "term" | "name" | "negation";
  /** Canonical form (lower case for terms and names). */
  value: string;
}

/** Capitalised words that are not names: articles, pronouns, prepositions, common sentence starts. */
export const NOT_NAMES: ReadonlySet<string> = new Set(
  (
    "a an the i we you he she it they me us him them my our your his her its their this that these " +
    "those there here what which who whom whose when where why how in on at for to from by with " +
    "about into onto over under after before during since until of off up down out and but or nor " +
    "so yet if then than as also too very just only not no yes all any some each every both either " +
    "neither one none is are was were be been am do does did has have had will would can could " +
    "should shall may might must let lets please note today yesterday tomorrow now later ok okay " +
    "hi hello thanks thank"
  ).split(" "),
);

const MONTHS: Record<string, number> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};
const MONTH_NAMES = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join("|");

const pad = (n: number | string) => String(n).padStart(2, "0");
const ymd = (y: string | undefined, m: string | number, d: string | number) =>
  y ? `${y}-${pad(m)}-${pad(d)}` : `${pad(m)}-${pad(d)}`;

/** Date patterns, each with its canonical form. Run in order; matches are blanked out. */
const DATE_PATTERNS: Array<{ re: RegExp; canon: (m: RegExpExecArray) => string | null }> = [
  {
    re: /(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g,
    canon: (m) => ymd(m[1], m[2] as string, m[3] as string),
  },
  {
    re: /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/g,
    canon: (m) => ymd(m[1], m[2] as string, m[3] as string),
  },
  {
    re: new RegExp(
      `\\b(${MONTH_NAMES})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?(?!\\d)`,
      "gi",
    ),
    canon: (m) => ymd(m[3], MONTHS[(m[1] as string).toLowerCase()] as number, m[2] as string),
  },
  {
    re: new RegExp(
      `(?<!\\d)(\\d{1,2})(?:st|nd|rd|th)?\\s+(${MONTH_NAMES})\\b\\.?(?:,?\\s+(\\d{4}))?`,
      "gi",
    ),
    canon: (m) => ymd(m[3], MONTHS[(m[2] as string).toLowerCase()] as number, m[1] as string),
  },
  {
    re: /(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])/g,
    canon: (m) => `${pad(m[1] as string)}:${m[2]}`,
  },
];

const URL_RE = /\bhttps?:\/\/[^\s)\]>"'`]+/gi;
const CODE_RE = /`([^`\n]{1,80})`/g;
const QUOTE_RES = [
  /"([^"\n]{2,80})"/g,
  /“([^”\n]{2,80})”/g,
  /「([^」\n]{1,80})」/g,
  /『([^』\n]{1,80})』/g,
  /《([^》\n]{1,80})》/g,
];
/** Letters/digits joined by `. _ - / : @`, at least one join; must hold a letter to be a term. */
const COMPOUND_RE = /[\p{L}\p{N}]+(?:[._\-/:@][\p{L}\p{N}]+)+/gu;
/** A word mixing letters and digits (`gpt4o`, `v2`): a term. */
const MIXED_RE = /\b(?=[\p{L}]*\p{N})(?=\p{N}*\p{L})[\p{L}\p{N}]{2,}\b/gu;
const NUMBER_RE = /(?<![\p{L}\p{N}.])\d+(?:[.,]\d+)*%?/gu;
const NAME_RE = /(?<![\p{L}\p{N}])[A-Z][\p{L}'’]*[\p{L}]|(?<![\p{L}\p{N}])[A-Z](?![\p{L}\p{N}])/gu;
const NEGATION_RE =
  /\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|can't|won't|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|shouldn't|wouldn't|couldn't|n't)\b|[不没沒别別未勿]/iu;
const CJK_RE = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/u;

/** Text without Markdown markup and HTML comments, NFKC-normalised. */
export function plainText(text: string): string {
  let out = text.normalize("NFKC");
  // Each replacement only where its markup occurs: most entries hold none, and the emphasis
  // pattern's lookarounds made it the costliest step of forgetting by text.
  if (out.includes("<!--")) out = out.replace(/<!--[\s\S]*?-->/g, " ");
  out = out
    .split("\n")
    .map((l) =>
      l
        .replace(/^\s{0,3}#{1,6}\s+/, "")
        .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/, "")
        .replace(/^\s*>\s?/, ""),
    )
    .join("\n");
  if (!/[*_~]/.test(out)) return out;
  return out
    .replace(/(\*\*|__|~~)/g, "")
    .replace(/(?<![\p{L}\p{N}])[*_](?=\S)|(?<=\S)[*_](?![\p{L}\p{N}])/gu, "");
}

/** The facts `text` holds (see {@link Fact}), each once. */
export function factsOf(text: string): Fact[] {
  let rest = plainText(text);
  const out = new Map<string, Fact>();
  const add = (kind: Fact["kind"], value: string) => {
    const v = value.trim();
    if (v) out.set(`${kind}\u0000${v}`, { kind, value: v });
  };
  const blank = (re: RegExp, each: (m: RegExpExecArray) => void) => {
    rest = rest.replace(re, (...args) => {
      const m = args.slice(0, -2) as unknown as RegExpExecArray;
      each(m);
      return " ".repeat((args[0] as string).length);
    });
  };
  for (const { re, canon } of DATE_PATTERNS) {
    blank(re, (m) => {
      const c = canon(m);
      if (c) add("date", c);
    });
  }
  blank(URL_RE, (m) => add("term", (m[0] as string).replace(/[.,;:!?]+$/, "").toLowerCase()));
  blank(CODE_RE, (m) => add("term", (m[1] as string).toLowerCase()));
  for (const re of QUOTE_RES) blank(re, (m) => add("term", (m[1] as string).toLowerCase()));
  // Names before compounds: `Lin's` is a name, `sqlite-vec` a term.
  for (const m of rest.matchAll(COMPOUND_RE)) {
    const word = m[0].replace(/[.:/]+$/, "");
    if (/\p{L}/u.test(word) && !/^\d+(?:[.,:]\d+)*$/.test(word)) add("term", word.toLowerCase());
  }
  rest = rest.replace(COMPOUND_RE, (w) => (/\p{L}/u.test(w) ? " ".repeat(w.length) : w));
  for (const m of rest.matchAll(MIXED_RE)) add("term", m[0].toLowerCase());
  rest = rest.replace(MIXED_RE, (w) => " ".repeat(w.length));
  for (const m of rest.matchAll(NUMBER_RE)) add("number", canonNumber(m[0]));
  for (const m of rest.matchAll(NAME_RE)) {
    const word = m[0].replace(/['’]s$/u, "");
    if (!NOT_NAMES.has(word.toLowerCase())) add("name", word.toLowerCase());
  }
  if (NEGATION_RE.test(plainText(text))) add("negation", "not");
  return [...out.values()];
}

function canonNumber(raw: string): string {
  let n = raw;
  // 5,000 and 1,234,567: thousands separators, not decimals.
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?%?$/.test(n)) n = n.replace(/,/g, "");
  return n.replace(/,/g, ".");
}

/**
 * The facts of `facts` that `text` does not hold. A date, number or negation is held when
 * `text` has the same one; a term or name when `text` contains it as a whole word (ignoring case;
 * CJK terms as a substring).
 */
export function missingFacts(facts: readonly Fact[], text: string): Fact[] {
  if (facts.length === 0) return [];
  const own = factsOf(text);
  const has = new Set(own.map((f) => `${f.kind}\u0000${f.value}`));
  const plain = plainText(text).toLowerCase();
  return facts.filter((f) => {
    if (has.has(`${f.kind}\u0000${f.value}`)) return false;
    if (f.kind === "date" || f.kind === "number") {
      // A date without a year is held by the same date with one.
      if (f.kind === "date" && /^\d{2}-\d{2}$/.test(f.value)) {
        return !own.some((o) => o.kind === "date" && o.value.endsWith(`-${f.value}`));
      }
      return true;
    }
    if (f.kind === "negation") return true;
    return !containsWord(plain, f.value);
  });
}

function containsWord(haystack: string, word: string): boolean {
  if (CJK_RE.test(word)) return haystack.includes(word);
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(word, from);
    if (at < 0) return false;
    const before = haystack[at - 1];
    const after = haystack[at + word.length];
    const edge = (c: string | undefined) => c === undefined || !/[\p{L}\p{N}]/u.test(c);
    if (edge(before) && edge(after)) return true;
    from = at + 1;
  }
}

/** `kind:value` for messages, e.g. `number:5433`, `name:lin`. */
export function describeFact(f: Fact): string {
  return f.kind === "negation" ? "a negation" : `${f.kind} "${f.value}"`;
}

/**
 * Dates a daily log's notes may mean without writing them: the log's own date and the days
 * either side (`yesterday`, `tomorrow`), as text to add to the support of a claim.
 */
export function impliedDates(paths: readonly string[]): string {
  const out = new Set<string>();
  for (const p of paths) {
    const m = /(\d{4})-(\d{2})-(\d{2})\.md$/.exec(p);
    if (!m) continue;
    const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    for (const d of [-1, 0, 1]) out.add(new Date(day + d * 86_400_000).toISOString().slice(0, 10));
  }
  return [...out].join(" ");
}
