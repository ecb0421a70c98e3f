import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, open, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MemoryStore, parseRecoveries, RECOVERY_META_KEY } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const opener = fileURLToPath(new URL("./fixtures/open-store.mjs", import.meta.url));

/** An index in an `.engram` folder holding `n` files of a few chunks each, closed cleanly. */
async function filledIndex(n = 400): Promise<string> {
  const dir = join(await temp.dir(), ".engram");
  await mkdir(dir);
  const path = join(dir, "index.sqlite");
  const store = await temp.open({ path });
  await store.reset({ dims: 4 });
  for (let i = 0; i < n; i += 50) {
    const upserts = Array.from({ length: 50 }, (_, j) =>
      upsert(`notes/${i + j}.md`, [
        [1, [`alpha${i + j}`, "shared", "词语"], [1, (i + j) % 7, 0, 1]],
        [5, [`beta${i + j}`, "other"], [0, 1, (i + j) % 5, 1]],
      ]),
    );
    await store.write({ upserts });
  }
  await store.close();
  return path;
}

async function recoveries(store: MemoryStore) {
  return parseRecoveries(await store.getMeta(RECOVERY_META_KEY));
}

async function damagedCopies(path: string): Promise<string[]> {
  const dir = join(path, "..");
  return (await readdir(dir)).filter((n) => /^index\.sqlite\.damaged-\d{8}T\d{6}Z$/.test(n));
}

/** The store works after recovering: it takes writes and answers both searches. */
async function works(store: MemoryStore): Promise<void> {
  await store.reset({ dims: 4 });
  await store.write({ upserts: [upsert("fresh.md", [[1, ["fresh", "新"], [1, 0, 0, 0]]])] });
  expect((await store.searchText(["新"], 5)).map((h) => h.chunk.path)).toEqual(["fresh.md"]);
  expect((await store.searchVector(Float32Array.from([1, 0, 0, 0]), 5))[0]?.chunk.path).toBe(
    "fresh.md",
  );
}

/**
 * Issue 20, item 15: a damaged index never rebuilt itself. The index is a cache of the Markdown
 * files: a damaged one is moved aside (kept, for a look), an empty one takes its place, and a
 * note under `engram.recovered` tells the next sync to say so once.
 */
describe("a damaged index is moved aside and replaced", () => {
  it("a garbage header: opening it starts an empty index and keeps the damaged copy", async () => {
    const path = await filledIndex(50);
    const handle = await open(path, "r+");
    await handle.write(Buffer.from("garbage!".repeat(16)), 0, 128, 0);
    await handle.close();

    const store = await temp.open({ path });
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
    const [note] = await recoveries(store);
    expect(note?.reason).toMatch(/not a database|SQLITE_NOTADB|malformed|CORRUPT/);
    expect(note?.movedTo).toMatch(/index\.sqlite\.damaged-/);
    expect(await damagedCopies(path)).toHaveLength(1);
    expect((await readFile(note?.movedTo ?? "")).subarray(0, 8).toString()).toBe("garbage!");
    await works(store);
  });

  it("half-truncated: found on open, or by the first statement that fails and refresh()", async () => {
    const path = await filledIndex();
    const { size } = await import("node:fs/promises").then((fs) => fs.stat(path));
    await truncate(path, Math.floor(size / 2));

    const store = await temp.open({ path });
    if ((await recoveries(store)).length === 0) {
      // Not found on open: dropping every file touches every page, and SQLite reports it.
      const failed = await (async () => {
        await store.stats();
        await store.write({ deletes: (await store.listFiles()).map((f) => f.path) });
      })().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toMatchObject({ code: "STORE_FAILED" });
      expect(await store.refresh?.()).toBe(true);
    }
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect((await recoveries(store))[0]?.reason).toMatch(/malformed|CORRUPT|NOTADB/);
    expect(await store.refresh?.()).toBe(false);
    await works(store);
  });

  it("damage a statement meets: marked, and refresh() replaces the file", async () => {
    const path = await filledIndex();
    const store = await temp.open({ path });
    // Ruin the pages after the first 64 KiB of the open index (the header and schema stay good).
    const handle = await open(path, "r+");
    const { size } = await handle.stat();
    await handle.write(Buffer.alloc(size - 65_536, 0xa5), 0, size - 65_536, 65_536);
    await handle.close();
    const failed = await (async () => {
      await store.write({ deletes: (await store.listFiles()).map((f) => f.path) });
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: "STORE_FAILED" });
    expect(await store.refresh?.()).toBe(true);
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect((await recoveries(store))[0]?.reason).toMatch(/malformed|CORRUPT/);
    expect(await damagedCopies(path)).toHaveLength(1);
    await works(store);
  });

  it("32 KiB of garbage in the middle after a process was killed: quick_check finds it on open", async () => {
    const path = await filledIndex();
    const child = spawn(process.execPath, [opener, path], { stdio: ["ignore", "pipe", "inherit"] });
    await once(child.stdout, "data"); // "open"
    child.kill("SIGKILL");
    await once(child, "close");
    expect(await readdir(`${path}.open`)).toHaveLength(1); // it never closed the index

    const { size } = await import("node:fs/promises").then((fs) => fs.stat(path));
    const handle = await open(path, "r+");
    await handle.write(
      Buffer.alloc(32 * 1024, 0x5a),
      0,
      32 * 1024,
      Math.floor(size / 2 / 4096) * 4096,
    );
    await handle.close();

    const store = await temp.open({ path });
    const [note] = await recoveries(store);
    expect(note?.reason).toMatch(/quick_check/);
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect(await readdir(`${path}.open`)).toHaveLength(1); // the dead mark went, ours came
    await works(store);
  });

  it("a clean close leaves no mark, so the next open pays for no check", async () => {
    const path = await filledIndex(50);
    expect(await readdir(`${path}.open`)).toEqual([]);
    const store = await temp.open({ path });
    expect(await readdir(`${path}.open`)).toHaveLength(1);
    expect(await recoveries(store)).toEqual([]);
    await store.close();
    expect(await readdir(`${path}.open`)).toEqual([]);
  });

  it("a file outside .engram that is not SQLite is never moved: it is refused as before", async () => {
    const path = join(await temp.dir(), "notes.md");
    await writeFile(path, "# my notes\n".repeat(500));
    await expect(temp.create({ path }).init()).rejects.toMatchObject({ code: "STORE_FAILED" });
    expect(await readFile(path, "utf8")).toBe("# my notes\n".repeat(500));
  });

  it("stores that had the damaged file open follow the new one; it is moved aside only once", async () => {
    const path = await filledIndex(50);
    const a = await temp.open({ path });
    const b = await temp.open({ path });
    const handle = await open(path, "r+");
    await handle.write(Buffer.from("garbage!".repeat(16)), 0, 128, 0);
    await handle.close();
    const c = await temp.open({ path }); // finds the damage and replaces the file
    expect(await recoveries(c)).toHaveLength(1);
    await c.write({ upserts: [upsert("from-c.md", [[1, ["shared"]]])] });
    for (const store of [a, b]) {
      expect(await store.refresh?.()).toBe(true);
      expect((await store.listFiles()).map((f) => f.path)).toEqual(["from-c.md"]);
    }
    expect(await damagedCopies(path)).toHaveLength(1);
  });
});

/** Issue 20, item 14 at the store: the index deleted under an open store is noticed and reopened. */
describe("an index deleted or replaced while open", () => {
  it("refresh() reopens it (recreating its folder) and reports it once", async () => {
    const path = await filledIndex(50);
    const store = await temp.open({ path });
    expect(await store.refresh?.()).toBe(false);
    await rm(join(path, ".."), { recursive: true });
    expect(await store.refresh?.()).toBe(true);
    expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect(await recoveries(store)).toEqual([]); // deleted on purpose: nothing was damaged
    expect(await store.refresh?.()).toBe(false);
    await works(store);
  });
});
