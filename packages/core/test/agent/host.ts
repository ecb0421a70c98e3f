import type { FlushHost } from "../../src/agent/index.js";
import type { Memory } from "../../src/memory.js";
import { appendDailyLog, appendLongTerm } from "../../src/workspace/append.js";
import type { Clock } from "../../src/workspace/clock.js";
import { readMemoryFile } from "../../src/workspace/read.js";

/**
 * The memory a flush policy writes through, made of core's real file functions (locked appends,
 * sandboxed reads) on `workspace`. Search needs an index store, which core's tests do not have: the
 * tools over a real SQLite index are tested in `packages/cli/test/memory-tools.test.ts`.
 */
export function fileMemory(
  workspace: string,
  clock: Clock,
  flush?: Partial<Memory["config"]["flush"]>,
): FlushHost {
  return {
    workspace,
    ...(flush ? { config: { flush } } : {}),
    appendDaily: (text, options = {}) => appendDailyLog(workspace, text, { clock, ...options }),
    appendLongTerm: (text, options = {}) => appendLongTerm(workspace, text, { clock, ...options }),
    get: (path, options = {}) => readMemoryFile(workspace, path, options),
    search: () => Promise.reject(new Error("search needs an index store; not used here")),
  };
}
