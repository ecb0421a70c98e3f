import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileIdentity, mayReplace, moveAside, OpenMarks } from "../../src/driver/index-file.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tempDir(name = "x"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "engram-index-file-"));
  dirs.push(dir);
  return join(dir, name);
}

describe("helpers for a store kept in one file", () => {
  it("moves a damaged file aside with its companions, drops the others, keeps the newest two", async () => {
    const dir = await tempDir(".engram");
    await mkdir(dir);
    const path = join(dir, "index.db");
    for (const [i, at] of ["2026-01-01", "2026-01-02", "2026-01-03"].entries()) {
      await writeFile(path, `copy ${i}`);
      await writeFile(`${path}-wal`, "log");
      await writeFile(`${path}-shm`, "shared");
      const moved = moveAside(
        path,
        { companions: ["-wal"], drop: ["-shm"] },
        new Date(`${at}T10:00:00Z`),
      );
      expect(moved).toBe(`${path}.damaged-${at.replaceAll("-", "")}T100000Z`);
    }
    expect((await readdir(dir)).sort()).toEqual([
      "index.db.damaged-20260102T100000Z",
      "index.db.damaged-20260102T100000Z-wal",
      "index.db.damaged-20260103T100000Z",
      "index.db.damaged-20260103T100000Z-wal",
    ]);
    expect(moveAside(path)).toBeUndefined(); // nothing left to move
    expect(fileIdentity(path)).toBe("missing");
  });

  it("replaces only files inside .engram or with the backend's header", async () => {
    const path = await tempDir("index.db");
    await writeFile(path, "MAGIC and the rest");
    expect(mayReplace(path, "MAGIC")).toBe(true);
    expect(mayReplace(path, "OTHER")).toBe(false);
    expect(mayReplace(`${path}.missing`, "MAGIC")).toBe(false);
  });

  it("open marks: a clean close leaves none; a dead process's mark is an unclean shutdown", async () => {
    const path = await tempDir("index.db");
    const marks = new OpenMarks(path);
    marks.mark();
    expect(new OpenMarks(path).sweep()).toBe(false); // this process is alive
    marks.unmark();
    expect(await readdir(`${path}.open`)).toEqual([]);
    const host = hostname();
    const dead = { pid: 2 ** 22 + 12345, token: "t", host, since: new Date().toISOString() };
    await writeFile(join(`${path}.open`, "dead.json"), JSON.stringify(dead));
    expect(new OpenMarks(path).sweep()).toBe(true);
    expect(await readdir(`${path}.open`)).toEqual([]);
  });
});
