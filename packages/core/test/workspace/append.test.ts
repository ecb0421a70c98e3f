import { readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type AppendResult,
  appendDailyLog,
  appendLongTerm,
  fixedClock,
} from "../../src/workspace/index.js";
import { startWorker, tempDir, writeFiles } from "./helpers.js";

const clock = fixedClock(new Date(2026, 0, 2, 9, 5));

/** Lines `startLine..endLine` (1-based) of `text`. */
function linesOf(text: string, r: AppendResult): string {
  return text
    .split("\n")
    .slice(r.startLine - 1, r.endLine)
    .join("\n");
}

describe("appendDailyLog", () => {
  it("creates the log with its title and appends entries with their line ranges", async () => {
    const ws = await tempDir();
    const first = await appendDailyLog(ws, "Deployed v2.\n\n", { clock });
    expect(first).toEqual({
      path: "memory/2026-01-02.md",
      startLine: 3,
      endLine: 5,
      created: true,
    });
    const second = await appendDailyLog(ws, "Two\nlines", {
      clock: fixedClock(new Date(2026, 0, 2, 14, 30)),
    });
    expect(second).toEqual({
      path: "memory/2026-01-02.md",
      startLine: 7,
      endLine: 10,
      created: false,
    });
    const text = await readFile(path.join(ws, "memory/2026-01-02.md"), "utf8");
    expect(text).toBe("# 2026-01-02\n\n## 09:05\n\nDeployed v2.\n\n## 14:30\n\nTwo\nlines\n\n");
    expect(linesOf(text, first)).toBe("## 09:05\n\nDeployed v2.");
    expect(linesOf(text, second)).toBe("## 14:30\n\nTwo\nlines");
  });

  it("uses an explicit date", async () => {
    const ws = await tempDir();
    const r = await appendDailyLog(ws, "x", { clock, date: "2025-12-31" });
    expect(r.path).toBe("memory/2025-12-31.md");
    expect(await readFile(path.join(ws, r.path), "utf8")).toBe("# 2025-12-31\n\n## 09:05\n\nx\n\n");
  });

  it("keeps every existing byte and adds a missing final newline", async () => {
    const ws = await tempDir();
    const before = Buffer.from("# my own title\r\n\nhand-written, no final newline ✓", "utf8");
    await writeFiles(ws, { "memory/2026-01-02.md": before });
    const r = await appendDailyLog(ws, "appended", { clock });
    const after = await readFile(path.join(ws, "memory/2026-01-02.md"));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.subarray(before.length).toString("utf8")).toBe("\n## 09:05\n\nappended\n\n");
    expect(r).toEqual({ path: "memory/2026-01-02.md", startLine: 4, endLine: 6, created: false });
    expect(linesOf(after.toString("utf8"), r)).toBe("## 09:05\n\nappended");
  });

  it("writes the title into an existing empty file", async () => {
    const ws = await tempDir();
    await writeFiles(ws, { "memory/2026-01-02.md": "" });
    const r = await appendDailyLog(ws, "x", { clock });
    expect(r).toMatchObject({ startLine: 3, endLine: 5, created: false });
    expect(await readFile(path.join(ws, r.path), "utf8")).toBe("# 2026-01-02\n\n## 09:05\n\nx\n\n");
  });

  it("refuses empty text, bad dates and symlinked targets", async () => {
    const ws = await tempDir();
    for (const text of ["", "   \n\t\n"]) {
      await expect(appendDailyLog(ws, text, { clock })).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    }
    await expect(appendDailyLog(ws, "x", { date: "2026-02-30" })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
    const outside = await tempDir();
    await writeFile(path.join(outside, "victim.md"), "keep");
    await writeFiles(ws, { "memory/.keep": "" });
    await symlink(path.join(outside, "victim.md"), path.join(ws, "memory/2026-01-02.md"));
    await expect(appendDailyLog(ws, "x", { clock })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    expect(await readFile(path.join(outside, "victim.md"), "utf8")).toBe("keep");

    const ws2 = await tempDir();
    await symlink(outside, path.join(ws2, "memory"));
    await expect(appendDailyLog(ws2, "x", { clock })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
  });

  it("keeps call order for concurrent appends from one process", async () => {
    const ws = await tempDir();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => appendDailyLog(ws, `entry ${i}`, { clock })),
    );
    const text = await readFile(path.join(ws, "memory/2026-01-02.md"), "utf8");
    results.forEach((r, i) => {
      expect(linesOf(text, r)).toBe(`## 09:05\n\nentry ${i}`);
    });
    expect(results.map((r) => r.startLine)).toEqual(results.map((_, i) => 3 + 4 * i));
  });
});

describe("appendLongTerm", () => {
  it("creates MEMORY.md and appends under a timestamp heading", async () => {
    const ws = await tempDir();
    const r = await appendLongTerm(ws, "Prefers tabs.", { clock });
    expect(r).toEqual({ path: "MEMORY.md", startLine: 3, endLine: 5, created: true });
    const r2 = await appendLongTerm(ws, "Uses pnpm.", { clock });
    expect(r2).toEqual({ path: "MEMORY.md", startLine: 7, endLine: 9, created: false });
    expect(await readFile(path.join(ws, "MEMORY.md"), "utf8")).toBe(
      "# Long-term Memory\n\n## 2026-01-02 09:05\n\nPrefers tabs.\n\n## 2026-01-02 09:05\n\nUses pnpm.\n\n",
    );
  });

  it("keeps an existing MEMORY.md byte for byte", async () => {
    const ws = await tempDir();
    const before = "# Me\n\n- likes coffee\n";
    await writeFiles(ws, { "MEMORY.md": before });
    const r = await appendLongTerm(ws, "likes tea too", { clock });
    const after = await readFile(path.join(ws, "MEMORY.md"), "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(r).toMatchObject({ startLine: 4, endLine: 6, created: false });
    expect(linesOf(after, r)).toBe("## 2026-01-02 09:05\n\nlikes tea too");
  });

  it("appends to another memory file, creating folders", async () => {
    const ws = await tempDir();
    const r = await appendLongTerm(ws, "Use SQLite.", {
      clock,
      file: "memory/long-term/decisions.md",
    });
    expect(r).toMatchObject({ path: "memory/long-term/decisions.md", created: true });
    const abs = path.join(ws, "memory/long-term/decisions.md");
    expect((await appendLongTerm(ws, "x", { clock, file: abs })).path).toBe(
      "memory/long-term/decisions.md",
    );
  });

  it("refuses files outside the memory layout", async () => {
    const ws = await tempDir();
    await expect(appendLongTerm(ws, "x", { file: "../x.md" })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    await expect(appendLongTerm(ws, "x", { file: "/etc/x.md" })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    for (const file of ["engram.config.json", ".env", "notes.md", "memory/x.txt", ".engram/x.md"]) {
      await expect(appendLongTerm(ws, "x", { file }), file).rejects.toMatchObject({
        code: "PATH_NOT_ALLOWED",
      });
    }
    await expect(appendLongTerm(ws, " ")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});

describe("appends from several processes", () => {
  it("two processes × 500 entries: every entry present once, intact, title once", async () => {
    const ws = await tempDir();
    const date = "2026-01-02";
    const go = path.join(ws, "go");
    const workers = ["A", "B"].map((id) => startWorker("append-worker", [ws, id, "500", date, go]));
    await Promise.all(workers.map((w) => w.waitFor("ready")));
    await writeFile(go, "");
    const outcomes = await Promise.all(workers.map((w) => w.exited));
    for (const o of outcomes) expect(o.code, o.stderr).toBe(0);

    const text = await readFile(path.join(ws, `memory/${date}.md`), "utf8");
    const title = `# ${date}\n\n`;
    expect(text.startsWith(title)).toBe(true);
    expect(text.split(`# ${date}\n`)).toHaveLength(2);

    // The whole file must parse as title + well-formed entries, nothing in between.
    const entry =
      /## \d\d:\d\d\n\nentry ([AB])-(\d+)\nsecond line of \1-\2\nthird line of \1-\2\n\n/y;
    entry.lastIndex = title.length;
    const seen = new Map<string, number>();
    const order: string[] = [];
    for (let m = entry.exec(text); m; m = entry.exec(text)) {
      const key = `${m[1]}-${m[2]}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      order.push(key);
      if (entry.lastIndex === text.length) break;
    }
    expect(entry.lastIndex).toBe(text.length);
    expect(seen.size).toBe(1000);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);

    // Each writer's entries are in its own order, and each reported line range points at its entry.
    for (const [w, id] of [
      [outcomes[0], "A"],
      [outcomes[1], "B"],
    ] as const) {
      expect(order.filter((k) => k.startsWith(id))).toEqual(
        Array.from({ length: 500 }, (_, i) => `${id}-${i}`),
      );
      const line = w?.stdout.split("\n").find((l) => l.startsWith("results "));
      const results = JSON.parse(line?.slice("results ".length) ?? "[]") as AppendResult[];
      expect(results).toHaveLength(500);
      results.forEach((r, i) => {
        expect(linesOf(text, r)).toMatch(
          new RegExp(`^## \\d\\d:\\d\\d\\n\\nentry ${id}-${i}\\n.*\\nthird line of ${id}-${i}$`),
        );
      });
      expect(results.filter((r) => r.created).length).toBeLessThanOrEqual(1);
    }
  }, 90_000); // 1,000 fsynced appends from two processes: 3–8 s, far more when the host's disk stalls
});
