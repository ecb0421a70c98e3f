import type { Candidate } from "./types.js";

const DAY_MS = 86_400_000;
const DAILY_LOG = /(?:^|\/)(\d{4})-(\d{2})-(\d{2})\.md$/;

/**
 * The day a memory file is about, from its name: daily logs are named `YYYY-MM-DD.md`
 * (`memory/2026-01-02.md`, or moved into `memory/archive/…`). Undefined for every other file —
 * `MEMORY.md`, project notes, knowledge pages — which never decay.
 */
export function dateOfPath(path: string): Date | undefined {
  const m = DAILY_LOG.exec(path.replaceAll("\\", "/"));
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(year, month - 1, day);
  return date.getMonth() === month - 1 && date.getDate() === day ? date : undefined;
}

/**
 * Score multiplier of a file `now`: `0.5 ^ (age in days / halfLifeDays)` for a daily log (a log
 * 30 days old with a 30-day half-life counts half), 1 for undated files. Age counts from the end
 * of the log's day, so today's log (and one dated in the future) keeps factor 1.
 */
export function decayFactor(path: string, now: Date, halfLifeDays: number): number {
  const date = dateOfPath(path);
  if (!date) return 1;
  const ageDays = Math.max(0, (now.getTime() - date.getTime()) / DAY_MS - 1);
  return 0.5 ** (ageDays / halfLifeDays);
}

/**
 * `candidates` with each score multiplied by its file's {@link decayFactor}. Returns new
 * candidates; the input is not changed. Because the factor is exponential, the order between two
 * dated results depends only on how far apart their days are, never on `now`.
 */
export function applyTemporalDecay(
  candidates: readonly Candidate[],
  now: Date,
  halfLifeDays: number,
): Candidate[] {
  return candidates.map((c) => ({
    ...c,
    score: c.score * decayFactor(c.chunk.path, now, halfLifeDays),
  }));
}
