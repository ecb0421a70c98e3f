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
        const { mtimeMs } = await lstat(abs);
        out.push(`${child} ${hash} ${mtimeMs}`);
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
 * The two trees hold the same folders, the same bytes in every file, and mtimes within 1 µs:
 * Node's `utimes` sets a time in whole microseconds from a double of seconds (~0.24 µs of a
 * 2026 date), so 1 µs is the most exact an mtime can be restored.
 */
export function expectSameTree(actual: readonly string[], expected: readonly string[]): void {
  const strip = (list: readonly string[]) => list.map((l) => l.replace(/ [\d.]+$/, ""));
  expect(strip(actual)).toEqual(strip(expected));
  actual.forEach((line, i) => {
    const a = Number(/ ([\d.]+)$/.exec(line)?.[1] ?? "0");
    const b = Number(/ ([\d.]+)$/.exec(expected[i] as string)?.[1] ?? "0");
    expect(Math.abs(a - b), `mtime of ${line.split(" ")[0]}`).toBeLessThanOrEqual(0.001);
  });
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
