import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isEngramError, type MemoryStore } from "@engram/core/driver";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteStore, DEFAULT_FILE_NAME, sqliteStore } from "../src/index.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const opened: MemoryStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function workspace() {
  const root = await temp.dir();
  const indexDir = join(root, ".engram");
  await mkdir(indexDir);
  return { workspace: root, indexDir };
}

describe("sqliteStore (the factory core uses)", () => {
  it("keeps the index at <indexDir>/index.sqlite by default", async () => {
    const context = await workspace();
    const store = await sqliteStore()(context);
    opened.push(store);
    await store.init();
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    expect(DEFAULT_FILE_NAME).toBe("index.sqlite");
    expect((await stat(join(context.indexDir, "index.sqlite"))).isFile()).toBe(true);
    expect(store.kind).toBe("sqlite");
    expect(store.capabilities).toEqual({
      vector: true,
      fulltext: true,
      keyValue: true,
      persistent: true,
      atomicWrites: true,
    });
    const stats = await store.stats();
    expect(stats.bytes).toBeGreaterThan(0);
  });

  it("resolves a relative path against the workspace", async () => {
    const context = await workspace();
    await mkdir(join(context.workspace, "cache"));
    const store = await sqliteStore({ path: "cache/memory.db", vectors: false })(context);
    opened.push(store);
    await store.init();
    expect((await stat(join(context.workspace, "cache", "memory.db"))).isFile()).toBe(true);
    expect(store.capabilities.vector).toBe(false);
  });

  it("accepts :memory: (not persistent, no byte count)", async () => {
    const store = await sqliteStore({ path: ":memory:" })(await workspace());
    opened.push(store);
    await store.init();
    expect(store.capabilities.persistent).toBe(false);
    expect((await store.stats()).bytes).toBeUndefined();
  });

  it("takes the memory options of earlier versions with a deprecation warning, and refuses typos", async () => {
    const warnings: Array<{ message: string; code?: string }> = [];
    const listen = (warning: Error & { code?: string }) => warnings.push(warning);
    process.on("warning", listen);
    try {
      const options = { path: ":memory:", vectorMemoryMb: 0, keywordMemoryAfterSearches: 1 };
      const store = await sqliteStore(options as never)(await workspace());
      opened.push(store);
      await store.init();
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a tick
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.code).toBe("ENGRAM_DEPRECATED_OPTION");
      expect(warnings[0]?.message).toMatch(/"vectorMemoryMb", "keywordMemoryAfterSearches"/);
      expect(() => sqliteStore({ vectorMemoryMB: 1 } as never)).toThrow(
        /option vectorMemoryMB is 1; it must be left out/,
      );
    } finally {
      process.off("warning", listen);
    }
  });

  it("refuses a bad value with CONFIG_INVALID naming the option, before anything opens", () => {
    const refused = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        if (isEngramError(error, "CONFIG_INVALID")) return error.message;
        throw error;
      }
      throw new Error("accepted");
    };
    expect(refused(() => sqliteStore({ vectors: "no" } as never))).toMatch(
      /option vectors is "no"; it must be true or false/,
    );
    expect(refused(() => sqliteStore({ busyTimeoutMs: -1 }))).toMatch(/busyTimeoutMs is -1/);
    expect(refused(() => createSqliteStore({ path: ":memory:", busyTimeoutMs: 1.5 }))).toMatch(
      /a whole number ≥ 0/,
    );
    expect(refused(() => createSqliteStore({ path: 7 } as never))).toMatch(/option path is 7/);
    expect(createSqliteStore({ path: ":memory:", busyTimeoutMs: 0 }).kind).toBe("sqlite");
  });
});
