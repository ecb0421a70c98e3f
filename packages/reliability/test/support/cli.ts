import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

/** The built CLI: the suite runs what users run. */
export const BIN = fileURLToPath(new URL("../../../cli/dist/bin.js", import.meta.url));

/**
 * What must never reach a user: SQLite's raw lock error, an unexpected error or a stack trace,
 * Node's own warning line.
 */
export const NEVER_SHOWN =
  /database is locked|SQLITE_BUSY|UNEXPECTED|\(node:\d+\)|\n\s+at .+:\d+:\d+|Segmentation fault|Aborted/;

/** How many CLI processes this worker started (a figure). */
export const counters = { runs: 0 };

/** The environment minus a developer's provider settings (tests set what they need). */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ENGRAM_|OPENAI_|GEMINI_|GOOGLE_API_KEY|GOOGLE_GEMINI_)/.test(k),
    ),
  );
  return { ...env, ENGRAM_WORKSPACE: "", ...extra };
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A CLI process started in the background. */
export interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>;
  done: Promise<Run>;
}

/** Start `engram …args` without waiting for it. */
export function start(args: string[], env: NodeJS.ProcessEnv = {}): Started {
  counters.runs++;
  const child = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const done = new Promise<Run>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Run `engram …args` to the end. */
export function engram(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return start(args, env).done;
}

/** Run it and expect exit 0 and nothing a user must never see; returns stdout. */
export async function ok(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const run = await engram(args, env);
  expect(run.code, `engram ${args.join(" ")}\n${run.stderr}`).toBe(0);
  expect(run.stderr).not.toMatch(NEVER_SHOWN);
  return run.stdout;
}

/** Run it with `--json` and parse what it printed. */
export async function okJson<T>(args: string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  return JSON.parse(await ok([...args, "--json"], env)) as T;
}
