import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  fileIdentity,
  IndexFile,
  type IndexFileBackend,
  mayReplace,
  moveAside,
  OpenMarks,
} from "../../src/driver/index-file.js";
import type { StoreRecovery } from "../../src/driver/recovery.js";

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

/** A backend whose file is text: `ok…` is sound, anything else damaged (code `BAD`). */
function textBackend(path: string) {
  const notes: StoreRecovery[] = [];
  const damage = (what: string) => Object.assign(new Error(`damaged: ${what}`), { code: "BAD" });
  const backend: IndexFileBackend<{ read(): string }> = {
    path,
    persistent: true,
    name: "text store",
    magic: "ok",
    connect(check) {
      if (!existsSync(path)) writeFileSync(path, "ok new");
      if (check && !readFileSync(path, "utf8").startsWith("ok")) throw damage("checked");
      return {
        read: () => {
          const text = readFileSync(path, "utf8");
          if (!text.startsWith("ok")) throw damage(text);
          return text;
        },
      };
    },
    disconnect() {},
    isDamage: (error) => (error as { code?: string }).code === "BAD",
    note: (_, recovery) => notes.push(recovery),
  };
  return { file: new IndexFile(backend), notes };
}

describe("IndexFile", () => {
  it("replaces a file a call found damaged on refresh, and reopens one deleted underneath", async () => {
    const dir = await tempDir(".engram"); // engram's folder: its files may be replaced
    await mkdir(dir);
    const path = join(dir, "index.txt");
    await writeFile(path, "ok first");
    const { file, notes } = textBackend(path);
    file.open();
    expect(file.use("read", (c) => c.read())).toBe("ok first");
    expect(file.refresh()).toBe(false); // same file, nothing found
    await writeFile(path, "garbage");
    expect(() => file.use("read", (c) => c.read())).toThrow(/damaged: garbage/);
    expect(file.refresh()).toBe(true);
    expect(file.use("read", (c) => c.read())).toBe("ok new");
    expect(notes).toEqual([
      expect.objectContaining({ reason: "damaged: garbage (BAD)", movedTo: expect.any(String) }),
    ]);
    await rm(path);
    expect(file.refresh()).toBe(true); // deleted: opened again, a new file
    expect(file.use("read", (c) => c.read())).toBe("ok new");
    file.close();
    expect(() => file.use("read", (c) => c.read())).toThrow(/text store is not initialised/);
  });

  it("refuses a missing folder, and a damaged file it may not replace", async () => {
    const missing = join(await tempDir("gone"), "index.txt");
    expect(() => textBackend(missing).file.open()).toThrow(/folder .* does not exist/);
    const path = await tempDir("index.txt");
    await writeFile(path, "not ours");
    const { file } = textBackend(path);
    file.open(); // opening reads nothing
    expect(() => file.use("read", (c) => c.read())).toThrow(/damaged/);
    expect(() => file.refresh()).toThrow(/damaged: not ours/); // no header, not in .engram
    expect(await readFile(path, "utf8")).toBe("not ours");
  });
});
