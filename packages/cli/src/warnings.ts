import { type Io, warn } from "./output.js";

/**
 * Print engram's own process warnings (codes `ENGRAM_*`, e.g. `ENGRAM_LOCK_COMPROMISED` when a
 * stopped process resumes and finds its lock gone) as the command's one-line
 * `engram: warning: …`, instead of Node's `(node:PID) [CODE] Warning: …` with its stack hint.
 * Other warnings keep Node's own printing. Call once, before running a command.
 */
export function printEngramWarnings(io: Io): void {
  const nodeDefaults = process.listeners("warning");
  process.removeAllListeners("warning");
  process.on("warning", (warning: Error & { code?: unknown }) => {
    if (typeof warning.code === "string" && warning.code.startsWith("ENGRAM_")) {
      warn(io, warning.message);
      return;
    }
    for (const listener of nodeDefaults) listener.call(process, warning);
  });
}
