import { describe, expect, it } from "vitest";
import { applyTemporalDecay, dateOfPath, decayFactor } from "../../src/search/decay.js";
import { candidate } from "./candidate.js";

const now = new Date(2026, 2, 31, 12, 0); // 31 March 2026, noon (local)

describe("dateOfPath", () => {
  it("reads the day of daily logs, also archived ones", () => {
    expect(dateOfPath("memory/2026-01-02.md")).toEqual(new Date(2026, 0, 2));
    expect(dateOfPath("memory/archive/2025/2025-12-31.md")).toEqual(new Date(2025, 11, 31));
  });

  it("finds no date in MEMORY.md, undated notes or impossible days", () => {
    expect(dateOfPath("MEMORY.md")).toBeUndefined();
    expect(dateOfPath("memory/long-term/decisions.md")).toBeUndefined();
    expect(dateOfPath("memory/notes-2026-01-02.md")).toBeUndefined();
    expect(dateOfPath("memory/2026-02-30.md")).toBeUndefined();
  });
});

describe("decayFactor", () => {
  it("halves a log every half-life, counted from the end of its day", () => {
    expect(decayFactor("memory/2026-03-31.md", now, 30)).toBe(1);
    // 1 March ends at 2 March 00:00: 29.5 days before 31 March, noon.
    expect(decayFactor("memory/2026-03-01.md", now, 30)).toBeCloseTo(0.5 ** (29.5 / 30), 6);
    expect(decayFactor("memory/2026-04-05.md", now, 30)).toBe(1);
  });

  it("never decays MEMORY.md or undated files", () => {
    expect(decayFactor("MEMORY.md", now, 30)).toBe(1);
    expect(decayFactor("memory/mid-term/projects/x/status.md", now, 30)).toBe(1);
  });
});

describe("applyTemporalDecay", () => {
  it("ranks a recent log above an older one that scored slightly better, and leaves the input alone", () => {
    const old = candidate("memory/2026-01-01.md", 1);
    const recent = candidate("memory/2026-03-30.md", 0.8);
    const curated = candidate("MEMORY.md", 0.5);
    const out = applyTemporalDecay([old, recent, curated], now, 30);
    expect(out[1]?.score ?? 0).toBeGreaterThan(out[0]?.score ?? 1);
    expect(out[2]?.score).toBe(0.5);
    expect(old.score).toBe(1);
  });

  it("orders dated results the same whatever now is (only their distance in days counts)", () => {
    const list = [candidate("memory/2023-05-01.md", 1), candidate("memory/2023-06-01.md", 0.6)];
    const ratio = (at: Date) => {
      const [a, b] = applyTemporalDecay(list, at, 30);
      return (a?.score ?? 0) / (b?.score ?? 1);
    };
    expect(ratio(new Date(2023, 6, 1))).toBeCloseTo(ratio(now), 6);
  });
});
