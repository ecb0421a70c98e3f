import { EngramError } from "../errors.js";

/** A source of "now", injectable so tests and replays get stable timestamps. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

/** The real wall clock. */
export const systemClock: Clock = {
  now: () => new Date(),
};

/**
 * A clock stopped at `date` (a `Date` or anything `new Date()` parses, e.g. an ISO string).
 * Every call to `now()` returns a fresh copy, so callers cannot move it by mutating the result.
 *
 * @throws EngramError `INVALID_ARGUMENT` when `date` is not a valid date.
 */
export function fixedClock(date: Date | string): Clock {
  const ms = new Date(date).getTime();
  if (Number.isNaN(ms)) {
    throw new EngramError("INVALID_ARGUMENT", `fixedClock: "${String(date)}" is not a valid date`, {
      hint: 'pass a Date or an ISO 8601 string such as "2026-01-02T09:30:00"',
    });
  }
  return { now: () => new Date(ms) };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** `YYYY-MM-DD` of `d` in the local time zone (the name of that day's log). */
export function localDate(d: Date): string {
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `HH:MM` (24-hour) of `d` in the local time zone. */
export function localTime(d: Date): string {
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
