import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built `engram-bench` entry: child-process tests run what a developer runs. */
export const BENCH_BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

/** A fresh temp folder; remove it with {@link removeDir}. */
export function tempDir(prefix = "engram-bench-test-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Run the built `engram-bench` to completion, without the caller's provider settings (API keys,
 * base URLs, `ENGRAM_*`), so no test calls a real embedding API or loads a developer's model.
 */
export function bench(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ENGRAM_|OPENAI_|GEMINI_|GOOGLE_API_KEY|GOOGLE_GEMINI_)/.test(k),
    ),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BENCH_BIN, ...args], {
      cwd: options.cwd,
      env: { ...env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
