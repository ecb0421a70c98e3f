import { readFileSync } from "node:fs";
import { type Io, processIo, reportError } from "@engram/cli";
import { Command, CommanderError } from "commander";
import { registerBeirBench } from "./beir-command.js";
import { registerConsolidateBench } from "./consolidate-command.js";
import { registerLocomoBench } from "./locomo-command.js";
import { registerBenchPerf } from "./perf-command.js";
import { registerRecallBench } from "./recall-command.js";
import { registerSmallBench } from "./small-command.js";
import { registerSynthBench } from "./synth-command.js";

const { version } = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
) as { version: string };

/** The `engram-bench` command tree (beir, locomo, perf) writing to `io`. */
export function createBenchProgram(io: Io = processIo): Command {
  const program = new Command("engram-bench")
    .description(
      "engram's benchmarks: retrieval quality (BEIR, small workspaces, LoCoMo) and speed (perf, recall)",
    )
    .version(version)
    .option("--json", "print stable JSON instead of Markdown")
    .showHelpAfterError("(run engram-bench --help for usage)")
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();
  registerBeirBench(program, io);
  registerLocomoBench(program, io);
  registerSmallBench(program, io);
  registerBenchPerf(program, io);
  registerConsolidateBench(program, io);
  registerRecallBench(program, io);
  registerSynthBench(program, io);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Run `engram-bench` with `argv` (without node and the script); resolves to the exit code. */
export async function runBench(argv: readonly string[], io: Io = processIo): Promise<number> {
  try {
    await createBenchProgram(io).parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    return reportError(io, error, argv.includes("--json"));
  }
}
