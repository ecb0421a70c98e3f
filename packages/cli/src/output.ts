import { EngramError, isEngramError } from "@engram/core";
import type { Command, CommanderError } from "commander";
import { palette } from "./colour.js";

/** Where a command writes: stdout for results, stderr for progress, warnings and errors. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env };

/** Write one line to stdout. */
export function line(io: Io, text = ""): void {
  io.stdout.write(`${text}\n`);
}

/** Write a value as stable, pretty JSON to stdout. */
export function json(io: Io, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Write a warning line to stderr. */
export function warn(io: Io, text: string): void {
  io.stderr.write(`engram: ${palette(io.stderr, io.env).yellow("warning:")} ${text}\n`);
}

/** Exit codes: 0 ok, 1 failure, 2 bad usage / config / workspace. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const USAGE_CODES = new Set([
  "CONFIG_INVALID",
  "INVALID_ARGUMENT",
  "WORKSPACE_MISSING",
  "PATH_OUTSIDE_WORKSPACE",
  "PATH_NOT_ALLOWED",
  "FILE_NOT_FOUND",
]);

/** Report an error as one line (or JSON with --json) on stderr; returns the exit code. */
export function reportError(io: Io, error: unknown, asJson: boolean): number {
  const code = isEngramError(error) ? error.code : "UNEXPECTED";
  const message = isEngramError(error)
    ? error.message
    : ((error as Error)?.message ?? String(error));
  const hint = isEngramError(error) ? error.hint : undefined;
  if (asJson) {
    io.stderr.write(`${JSON.stringify({ error: { code, message, ...(hint ? { hint } : {}) } })}\n`);
  } else {
    const c = palette(io.stderr, io.env);
    io.stderr.write(`${c.red("engram:")} ${message}${hint ? c.dim(` (${hint})`) : ""}\n`);
    if (!isEngramError(error) && io.env.ENGRAM_DEBUG && error instanceof Error && error.stack) {
      io.stderr.write(`${error.stack}\n`);
    }
  }
  return USAGE_CODES.has(code) ? EXIT.usage : EXIT.failure;
}

/**
 * A Commander usage error (unknown option or command, missing argument) as an `INVALID_ARGUMENT`
 * error, so it prints like every other error: one line, or JSON with --json, exit code 2. The
 * hint names the help of the command that was being run.
 */
export function usageError(
  program: Command,
  argv: readonly string[],
  error: CommanderError,
): EngramError {
  const message = error.message.replace(/^error: /, "").split("\n")[0] ?? error.message;
  const suggestion = /\(Did you mean (.+)\?\)/.exec(error.message)?.[1];
  const names = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  const command = argv.find((arg) => names.has(arg));
  const help = `see engram ${command ? `${command} ` : ""}--help`;
  return new EngramError("INVALID_ARGUMENT", message, {
    hint: suggestion ? `did you mean ${suggestion}? ${help}` : help,
  });
}

/** `1.2 s` / `340 ms`. */
export function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** `1 file` / `2 files`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
