import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isEngramError } from "../../src/errors.js";
import {
  assertWorkspace,
  CONFIG_FILE,
  dailyLogPath,
  fixedClock,
  INDEX_DIR,
  isDailyLogPath,
  localDate,
  localTime,
  MEMORY_DIR,
  MEMORY_FILE,
  systemClock,
  toPosix,
} from "../../src/workspace/index.js";
import { tempDir } from "./helpers.js";

describe("clock", () => {
  it("formats local date and time with zero padding", () => {
    const d = new Date(2026, 0, 2, 9, 5, 59);
    expect(localDate(d)).toBe("2026-01-02");
    expect(localTime(d)).toBe("09:05");
    expect(localTime(new Date(2026, 11, 31, 23, 59))).toBe("23:59");
  });

  it("fixedClock returns the same instant, as fresh copies", () => {
    const clock = fixedClock(new Date(2026, 2, 4, 10, 30));
    const a = clock.now();
    a.setFullYear(1999);
    expect(localDate(clock.now())).toBe("2026-03-04");
    expect(localDate(fixedClock("2026-03-04T10:30:00").now())).toBe("2026-03-04");
  });

  it("fixedClock refuses an invalid date", () => {
    expect(() => fixedClock("not a date")).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT" }),
    );
  });

  it("systemClock tells the current time", () => {
    expect(systemClock.now()).toBeInstanceOf(Date);
  });
});

describe("layout", () => {
  it("names the layout", () => {
    expect([MEMORY_FILE, MEMORY_DIR, INDEX_DIR, CONFIG_FILE]).toEqual([
      "MEMORY.md",
      "memory",
      ".engram",
      "engram.config.json",
    ]);
  });

  it("dailyLogPath validates the date", () => {
    expect(dailyLogPath("2026-01-02")).toBe("memory/2026-01-02.md");
    expect(dailyLogPath("2024-02-29")).toBe("memory/2024-02-29.md");
    for (const bad of ["2026-1-2", "2026-02-30", "2026-13-01", "../../etc", "2026-01-02.md", ""]) {
      expect(() => dailyLogPath(bad), bad).toThrow(
        expect.objectContaining({ code: "INVALID_ARGUMENT" }),
      );
    }
  });

  it("isDailyLogPath returns the date or null", () => {
    expect(isDailyLogPath("memory/2026-01-02.md")).toBe("2026-01-02");
    expect(isDailyLogPath("./memory/2026-01-02.md")).toBe("2026-01-02");
    expect(isDailyLogPath("memory/2026-02-30.md")).toBeNull();
    expect(isDailyLogPath("memory/short-term/2026-01-02.md")).toBeNull();
    expect(isDailyLogPath("MEMORY.md")).toBeNull();
    expect(isDailyLogPath("memory/2026-01-02.txt")).toBeNull();
  });

  it("toPosix leaves POSIX paths alone", () => {
    expect(toPosix(path.join("memory", "a", "b.md"))).toBe("memory/a/b.md");
  });

  it("assertWorkspace returns the real path of an existing folder", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "real"));
    await symlink(path.join(dir, "real"), path.join(dir, "link"));
    const real = await assertWorkspace(path.join(dir, "real"));
    expect(path.isAbsolute(real)).toBe(true);
    expect(await assertWorkspace(path.join(dir, "link"))).toBe(real);
  });

  it("assertWorkspace refuses a missing folder or a file with a hint", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "file"), "x");
    for (const bad of [path.join(dir, "missing"), path.join(dir, "file"), ""]) {
      const error = await assertWorkspace(bad).catch((e: unknown) => e);
      expect(isEngramError(error, "WORKSPACE_MISSING"), String(error)).toBe(true);
      expect((error as { hint?: string }).hint).toContain('run "engram init" or pass --workspace');
    }
  });
});
