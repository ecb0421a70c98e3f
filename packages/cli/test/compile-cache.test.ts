import { existsSync } from "node:fs";
import * as nodeModule from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CompileCacheApi, enableCompileCache } from "../src/compile-cache.js";
import { engram, removeDir, tempDir } from "./helpers.js";

/** An API object that records whether the cache was asked for (the guards are what is tested). */
function recording(enable?: () => unknown): CompileCacheApi & { calls: number } {
  const api = {
    calls: 0,
    enableCompileCache: () => {
      api.calls++;
      return enable?.();
    },
  };
  return api;
}

describe("Node's compile cache for the engram command", () => {
  it("is turned on where Node has it", () => {
    const api = recording();
    enableCompileCache(api, "linux", "22.21.1");
    enableCompileCache(api, "darwin", "24.3.0");
    enableCompileCache(api, "win32", "24.15.0");
    enableCompileCache(api, "win32", "22.12.0");
    expect(api.calls).toBe(4);
  });

  it("is left off on Windows with Node 24.0–24.14, where it could hang the start", () => {
    const api = recording();
    for (const version of ["24.0.0", "24.9.1", "24.10.0", "24.14.2"]) {
      enableCompileCache(api, "win32", version);
    }
    expect(api.calls).toBe(0);
  });

  it("does nothing on a Node without it, and a cache that fails to start is not an error", () => {
    expect(() => enableCompileCache({}, "linux", "20.19.0")).not.toThrow();
    const failing = recording(() => {
      throw new Error("EACCES: permission denied, mkdir '/tmp/node-compile-cache'");
    });
    expect(() => enableCompileCache(failing, "linux", "22.21.1")).not.toThrow();
    expect(failing.calls).toBe(1);
  });

  it("the built command turns it on where this Node has it, and only there", async (context) => {
    if (process.env.NODE_COMPILE_CACHE || process.env.NODE_DISABLE_COMPILE_CACHE) {
      context.skip(); // the environment decides where (or whether) the cache goes
    }
    const tmp = await tempDir("engram-compile-cache-");
    try {
      const run = await engram(["--version"], { env: { TMPDIR: tmp } });
      expect(run.code).toBe(0);
      // Node 20, this repository's floor, has no compile cache: the start leaves no cache behind.
      // On Node 22.8 and later the same start writes one under the temp folder.
      const has = typeof (nodeModule as CompileCacheApi).enableCompileCache === "function";
      expect(existsSync(join(tmp, "node-compile-cache"))).toBe(has);
    } finally {
      await removeDir(tmp);
    }
  });
});
