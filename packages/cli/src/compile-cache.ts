import * as nodeModule from "node:module";

/** The part of `node:module` this needs (`enableCompileCache`: Node 22.8 on). */
export interface CompileCacheApi {
  enableCompileCache?: () => unknown;
}

/**
 * Turn on Node's on-disk compile cache for the modules this process loads from now on
 * (`module.enableCompileCache()`, in `os.tmpdir()/node-compile-cache`), so that an `engram`
 * call does not compile the same code again at every start: with Node 22.21 on a 2-core machine,
 * `engram search` on a small workspace took ~70 ms less wall time and CPU, a fifth of the call
 * (`bench/results/cli-cpu.md`). A no-op on Node versions without it (20), under
 * `NODE_DISABLE_COMPILE_CACHE=1` (Node's own switch), and on Windows with Node 24.0–24.14, where
 * an enabled cache could hang a CLI's start (reported by OpenClaw, openclaw/openclaw#86550). A
 * cache that cannot be written (a read-only temp folder) leaves compilation as it was. Call it
 * before importing the rest.
 */
export function enableCompileCache(
  api: CompileCacheApi = nodeModule as CompileCacheApi,
  platform: NodeJS.Platform = process.platform,
  version: string = process.versions.node,
): void {
  if (typeof api.enableCompileCache !== "function") return;
  if (platform === "win32" && /^24\.(\d|1[0-4])\./.test(version)) return;
  try {
    api.enableCompileCache();
  } catch {
    // The cache is only an optimisation: without it every module compiles as before.
  }
}
