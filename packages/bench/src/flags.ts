import { type EngramConfigInput, EngramError } from "@engram/core";
import type { Command } from "commander";

/** Options every bench command accepts. */
export interface BenchGlobals {
  /** Print the result as JSON instead of Markdown. */
  json?: boolean;
}

/** The global options as seen from a subcommand. */
export function globals(cmd: Command): BenchGlobals {
  return cmd.optsWithGlobals<BenchGlobals>();
}

/** `--config <json>`: the workspace config a bench writes, or a usage error naming the flag. */
export function parseConfigFlag(text: string | undefined): EngramConfigInput | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as EngramConfigInput;
  } catch (error) {
    throw new EngramError("INVALID_ARGUMENT", `--config is not JSON: ${(error as Error).message}`, {
      hint: `pass a JSON object, e.g. --config '{"analyzer":{"english":"none"}}'`,
    });
  }
}
