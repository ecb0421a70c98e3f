import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import type { GenerateRequest } from "../../src/model/language-model.js";
import {
  createScriptedLanguageModel,
  type ScriptedLanguageModel,
} from "../../src/testing/scripted-language-model.js";

/**
 * Every file (minus `.engram/`) with its sha256 and mtime, and every folder: what "the exact
 * previous tree" means. Compare two with {@link expectSameTree}.
 */
export async function treeWithTimes(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string): Promise<void> => {
    for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (child === ".engram") continue;
      if (e.isDirectory()) {
        out.push(`${child}/`);
        await visit(child);
      } else {
        const abs = path.join(root, child);
        const hash = createHash("sha256")
          .update(await readFile(abs))
          .digest("hex");
        // In whole microseconds, read exactly (a double of milliseconds is only good to 0.24 µs).
        const { mtimeNs } = await lstat(abs, { bigint: true });
        out.push(`${child} ${hash} ${mtimeNs / 1000n}`);
      }
    }
  };
  await visit("");
  return out.sort();
}

/** A file's text. */
export function read(root: string, rel: string): Promise<string> {
  return readFile(path.join(root, rel), "utf8");
}

/**
 * The two trees hold the same folders, the same bytes in every file, and the same mtimes to the
 * microsecond: libuv's `utimes` keeps whole microseconds, and the journal records each time to
 * the microsecond, so that is exactly what an undo gives back.
 */
export function expectSameTree(actual: readonly string[], expected: readonly string[]): void {
  expect(actual).toEqual(expected);
}

/**
 * A scripted model answering `answer(request, call)` (call counted from 1) as JSON, with token
 * usage by core's estimator (`createScriptedLanguageModel` from `@engram/core/testing`).
 */
export function scripted(
  answer: (request: GenerateRequest, call: number) => unknown,
  options: { contextTokens?: number } = {},
): ScriptedLanguageModel {
  return createScriptedLanguageModel({
    ...options,
    script: async (request, n) => ({ value: await answer(request, n + 1) }),
  });
}
