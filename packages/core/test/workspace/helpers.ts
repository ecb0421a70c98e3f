import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../../../..");
/** `--import` target that lets a child `node` run TypeScript from source. */
const tsxLoader = pathToFileURL(
  createRequire(path.join(repoRoot, "package.json")).resolve("tsx"),
).href;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh temp folder removed after the test. */
export async function tempDir(prefix = "engram-ws-"): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `files` (relative path → content) below `root`, creating folders. */
export async function writeFiles(
  root: string,
  files: Record<string, string | Buffer>,
): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

/** A running fixture script (`fixtures/<name>.ts`) in its own `node` process. */
export interface Worker {
  child: ChildProcess;
  /** Resolves with the first stdout line containing `marker`. */
  waitFor(marker: string): Promise<string>;
  /** Resolves with exit code/signal and all stdout once the process ends. */
  exited: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/** Starts `fixtures/<name>.ts` with `node --import tsx`; killed after the test if still running. */
export function startWorker(name: string, args: string[]): Worker {
  const child = spawn(
    process.execPath,
    ["--import", tsxLoader, path.join(here, "fixtures", `${name}.ts`), ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  const waiters: { marker: string; resolve: (line: string) => void }[] = [];
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    for (const w of [...waiters]) {
      const line = stdout.split("\n").find((l) => l.includes(w.marker));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  });
  return {
    child,
    exited,
    waitFor: (marker) =>
      new Promise((resolve, reject) => {
        waiters.push({ marker, resolve });
        void exited.then((r) =>
          reject(
            new Error(
              `worker ${name} exited (${r.code ?? r.signal}) before "${marker}": ${r.stderr}`,
            ),
          ),
        );
      }),
  };
}
