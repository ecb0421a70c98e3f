/** A parsed `maintenance.schedule`. */
export type Schedule =
  | { kind: "off" }
  | { kind: "daily"; hour: number; minute: number }
  | { kind: "every"; ms: number };

const DAILY_RE = /^daily\s+([01]?\d|2[0-3]):([0-5]\d)$/;
const EVERY_RE = /^every\s+(\d+)\s*(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parse `"daily 03:00"`, `"hourly"`, `"every 6h"`, `"every 30m"`, `"every 2d"` or `"off"`; null otherwise. */
export function parseSchedule(text: string): Schedule | null {
  const s = text.trim().toLowerCase();
  if (s === "off" || s === "") return { kind: "off" };
  if (s === "hourly") return { kind: "every", ms: UNIT_MS.h };
  if (s === "daily") return { kind: "daily", hour: 3, minute: 0 };
  const daily = DAILY_RE.exec(s);
  if (daily) return { kind: "daily", hour: Number(daily[1]), minute: Number(daily[2]) };
  const every = EVERY_RE.exec(s);
  if (every) {
    const n = Number(every[1]);
    if (n < 1) return null;
    return { kind: "every", ms: n * UNIT_MS[every[2] as keyof typeof UNIT_MS] };
  }
  return null;
}

/**
 * The latest scheduled instant at or before `now` (local time), or null for `off`. A pass is due
 * when the last one ran before it: a 03:00 run missed because nothing was running happens at the
 * next check. For `every`, the instant is `lastPass + interval` (or now, before the first pass).
 */
export function lastSlot(schedule: Schedule, now: Date, lastPass: Date | null): Date | null {
  switch (schedule.kind) {
    case "off":
      return null;
    case "daily": {
      const slot = new Date(now);
      slot.setHours(schedule.hour, schedule.minute, 0, 0);
      if (slot.getTime() > now.getTime()) slot.setDate(slot.getDate() - 1);
      return slot;
    }
    case "every":
      return lastPass ? new Date(lastPass.getTime() + schedule.ms) : new Date(now);
  }
}

/** The next scheduled instant after `now` (for `status`), or null for `off`. */
export function nextSlot(schedule: Schedule, now: Date, lastPass: Date | null): Date | null {
  switch (schedule.kind) {
    case "off":
      return null;
    case "daily": {
      const slot = new Date(now);
      slot.setHours(schedule.hour, schedule.minute, 0, 0);
      if (slot.getTime() <= now.getTime()) slot.setDate(slot.getDate() + 1);
      return slot;
    }
    case "every": {
      const next = lastPass ? lastPass.getTime() + schedule.ms : now.getTime();
      return new Date(Math.max(next, now.getTime()));
    }
  }
}
