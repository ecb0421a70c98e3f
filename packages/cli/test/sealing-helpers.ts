import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { BIN, withoutProviderEnv } from "./helpers.js";

/** Resolves after `ms` milliseconds. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Files under `dir` (recursively) whose bytes contain `needle` (UTF-8, any case). */
export async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  const wanted = [Buffer.from(needle), Buffer.from(needle.toLowerCase())];
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const abs = join(at, entry.name);
      if (entry.isDirectory()) await walk(abs);
      else if (entry.isFile()) {
        const bytes = await readFile(abs);
        if (wanted.some((w) => bytes.includes(w))) found.push(abs);
      }
    }
  };
  await walk(dir);
  return found;
}

/**
 * Runs the CLI and kills it with SIGKILL as soon as `started` sees its work under way; true when
 * the kill landed (false when the run finished first).
 */
export async function killMidway(
  args: string[],
  env: NodeJS.ProcessEnv,
  started: () => Promise<boolean>,
): Promise<boolean> {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    env: { ...withoutProviderEnv(process.env), ENGRAM_WORKSPACE: "", ...env },
    stdio: "ignore",
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let killed = false;
  for (;;) {
    const done = await Promise.race([exited.then(() => true), pause(5).then(() => false)]);
    if (done) break;
    if (await started()) {
      killed = child.kill("SIGKILL");
      break;
    }
  }
  await exited;
  return killed;
}
