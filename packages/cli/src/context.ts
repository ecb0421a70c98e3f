import { EngramError, type Memory } from "@engram/core";
import type { Command } from "commander";
import { type Io, warn } from "./output.js";
import { openMemory, workspaceDir } from "./workspace.js";

/** Options every command accepts. */
export interface GlobalOptions {
  workspace?: string;
  json?: boolean;
  /** Store driver overriding the config's `store.driver`. */
  store?: string;
}

/** The output of each program `createProgram` built (commands find it through their root). */
const programIo = new WeakMap<Command, Io>();

/** Remember that `program` writes to `io`. */
export function setProgramIo(program: Command, io: Io): void {
  programIo.set(program, io);
}

/** The output `cmd`'s program writes to, if it was built by `createProgram`. */
export function ioOf(cmd: Command): Io | undefined {
  let root: Command = cmd;
  while (root.parent) root = root.parent;
  return programIo.get(root);
}

/** The global options as seen from a subcommand. */
export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

/** Open the workspace's memory, run `fn`, always close it. */
export async function withMemory<T>(
  cmd: Command,
  fn: (memory: Memory, options: GlobalOptions) => Promise<T>,
  openOptions: { create?: boolean; store?: string } = {},
): Promise<T> {
  const options = globals(cmd);
  const memory = await openMemory(workspaceDir(options.workspace), {
    store: options.store,
    ...openOptions,
  });
  // A provider named in the config that cannot run is said once, on stderr; the command goes on.
  const io = ioOf(cmd);
  if (io) for (const text of memory.warnings) warn(io, text);
  try {
    return await fn(memory, options);
  } finally {
    await memory.close();
  }
}

/** Parse a positive integer flag or throw a usage error naming the flag. */
export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${flag} must be a positive whole number, got "${value}"`,
      {
        hint: `for example ${flag} 6`,
      },
    );
  }
  return n;
}

/** Parse a number in [0, 1] or throw a usage error naming the flag. */
export function unitNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${flag} must be a number from 0 to 1, got "${value}"`,
      {
        hint: `for example ${flag} 0.35`,
      },
    );
  }
  return n;
}
