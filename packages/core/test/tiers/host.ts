import { createAnalyzer } from "../../src/text/analyzer.js";
import type { TierHost } from "../../src/tiers/index.js";
import { appendLongTerm } from "../../src/workspace/append.js";
import type { Clock } from "../../src/workspace/clock.js";
import { readMemoryFile } from "../../src/workspace/read.js";

/** A clock a test moves by hand. */
export function steppingClock(start: string): Clock & { advance(seconds: number): void } {
  let ms = new Date(start).getTime();
  return {
    now: () => new Date(ms),
    advance: (seconds) => {
      ms += seconds * 1000;
    },
  };
}

/**
 * The tier APIs' host made of core's real file functions on `workspace` (locked appends,
 * sandboxed reads). Search needs an index store, which core's tests do not have: searchKnowledge
 * and group-scope search over real SQLite are tested in `packages/cli/test/tiers.test.ts`.
 */
export function fileHost(workspace: string, clock: Clock): TierHost & { written: string[] } {
  const written: string[] = [];
  return {
    workspace,
    clock,
    analyzer: createAnalyzer(),
    written,
    noteWritten: (...paths) => written.push(...paths),
    appendLongTerm: async (text, options = {}) => {
      const result = await appendLongTerm(workspace, text, { clock, ...options });
      written.push(result.path);
      return result;
    },
    get: (path, options = {}) => readMemoryFile(workspace, path, options),
    search: () => Promise.reject(new Error("search needs an index store; not used here")),
  };
}
