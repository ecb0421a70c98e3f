import { type ChildProcess, type ChildProcessByStdio, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

/** The built CLI entry: child-process tests run what users run. */
export const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

/** A fresh temp folder; remove it with `rm(dir, { recursive: true, force: true })`. */
export function tempDir(prefix = "engram-e2e-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Write files (path → content) under `root`, creating folders. */
export async function writeFiles(
  root: string,
  files: Record<string, string | Buffer>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * The environment minus anything that would make a test call a real embedding API or load a
 * developer's model (API keys, base URLs, ENGRAM_* settings): tests set what they need.
 */
export function withoutProviderEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([k]) => !/^(ENGRAM_|OPENAI_|GEMINI_|GOOGLE_API_KEY|GOOGLE_GEMINI_)/.test(k),
    ),
  );
}

/** Run the built `engram` CLI to completion (without the caller's provider settings). */
export function engram(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...withoutProviderEnv(process.env), ENGRAM_WORKSPACE: "", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** Poll `check` until it returns a truthy value or `timeoutMs` passes; returns the value. */
export async function eventually<T>(
  check: () => Promise<T>,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A running `engram watch --json` child and the events it printed so far. */
export interface WatchChild {
  child: ChildProcessByStdio<null, Readable, Readable>;
  events: Record<string, unknown>[];
}

/**
 * Stop `child` with `signal` and wait until it has exited, so that nothing is still writing into
 * the workspace when a test removes it (a watcher finishing its shutdown made `rm` fail with
 * ENOTEMPTY).
 */
export async function stopChild(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill(signal);
  await exited;
}

/**
 * Start `engram watch --json --debounce 200` on `ws`, collecting its NDJSON events; resolves once
 * it printed `ready` (rejects after 20 s). Kill `child` when done.
 */
export async function startWatchJson(ws: string): Promise<WatchChild> {
  const child = spawn(
    process.execPath,
    [BIN, "watch", "--json", "--debounce", "200", "--workspace", ws],
    { stdio: ["ignore", "pipe", "pipe"], env: withoutProviderEnv(process.env) },
  );
  const events: Record<string, unknown>[] = [];
  let buffered = "";
  child.stdout.on("data", (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const l of lines.filter(Boolean)) events.push(JSON.parse(l));
  });
  if (!(await eventually(async () => events.some((e) => e.event === "ready"), 20_000))) {
    child.kill("SIGKILL");
    throw new Error("engram watch did not print ready within 20 s");
  }
  return { child, events };
}
