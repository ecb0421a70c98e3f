import picomatch from "picomatch";
import { EngramError } from "../errors.js";
import type { Tier } from "../tier.js";
import { toPosix } from "./layout.js";

/** Globs (picomatch, POSIX, workspace-relative) that place a file in each tier. */
export type TierMap = Record<Tier, string[]>;

/** The layout of the architecture doc: daily logs short, `MEMORY.md` long, tier folders as named. */
export const DEFAULT_TIER_MAP: Readonly<TierMap> = Object.freeze({
  // Consolidation reports (`memory/dreams/`) are history: searched on request, like the archive.
  archive: frozen(["memory/archive/**", "memory/dreams/**"]),
  short: frozen(["memory/*.md", "memory/short-term/**"]),
  mid: frozen(["memory/mid-term/**"]),
  long: frozen(["MEMORY.md", "memory/long-term/**"]),
});

/** The shared default must not be edited by a caller: its lists are frozen, too. */
function frozen(globs: string[]): string[] {
  return Object.freeze(globs) as string[];
}

/** Order in which tiers are tried: archive wins over everything, so archiving always demotes. */
const RESOLVE_ORDER: readonly Tier[] = ["archive", "short", "mid", "long"];

/** Curated long-term memory, by name, in every layout (e.g. nanobot's `memory/MEMORY.md`). */
const LONG_TERM_NAME = /(?:^|\/)MEMORY\.md$/;

/**
 * Checks `map` (a {@link TierMap}; a missing tier counts as no globs) and returns a function
 * giving the tier of an index path (workspace-relative POSIX; a leading `./` is ignored). Tiers are
 * tried archive → short → mid → long, except that any other file named `MEMORY.md` is long-term
 * (nanobot keeps it in `memory/`, where `memory/*.md` means daily logs); a path no glob
 * matches (e.g. an absolute extraPath file) gets `fallback`. Globs match dotfiles (`dot: true`);
 * each tier's are compiled once, on first use.
 *
 * @throws EngramError `CONFIG_INVALID` when a glob is not a non-empty string.
 */
export function createTierResolver(
  map: { readonly [T in Tier]: readonly string[] },
  fallback: Tier = "long",
): (path: string) => Tier {
  const matchers = RESOLVE_ORDER.map((tier) => {
    const globs = map[tier] ?? [];
    for (const glob of globs) {
      if (typeof glob !== "string" || glob.trim() === "") {
        throw new EngramError(
          "CONFIG_INVALID",
          `tier map: "${tier}" has an empty or non-string glob`,
          {
            hint: 'give every tier a list of non-empty globs (e.g. "memory/archive/**") in engram.config.json',
          },
        );
      }
    }
    // Compiled on the first path asked about: a process that only searches never needs it.
    let compiled: ((path: string) => boolean) | undefined;
    const isMatch = (path: string): boolean => {
      compiled ??= globMatcher(globs);
      return compiled(path);
    };
    return { tier, isMatch };
  });
  const [archive, ...rest] = matchers;
  return (path: string): Tier => {
    const p = toPosix(path).replace(/^(?:\.\/)+/, "");
    if (archive?.isMatch(p)) return "archive";
    // Any MEMORY.md is curated long-term memory, whatever glob would take it for a log.
    if (LONG_TERM_NAME.test(p)) return "long";
    for (const { tier, isMatch } of rest) {
      if (isMatch(p)) return tier;
    }
    return fallback;
  };
}

/**
 * True for a path any of `globs` matches, as `picomatch(globs, { dot: true })` says: picomatch's
 * matcher, for these options and POSIX paths, takes the path equal to the glob or tests it
 * against `picomatch.makeRe(glob)`, which is what this does without building a result object per
 * call (every sync and pre-search scan asks for every file: 2,700 files took ~16 ms through
 * picomatch's matcher, ~6 ms through the regexes, first call included). The tier test holds the
 * two to the same answers.
 */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.map((glob) => ({ glob, re: picomatch.makeRe(glob, { dot: true }) }));
  return (path) => patterns.some(({ glob, re }) => path === glob || re.test(path));
}
