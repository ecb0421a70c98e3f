import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerAdd } from "./commands/add.js";
import { registerAudit } from "./commands/audit.js";
import { registerCompletion, wantsCompletion, withCompletion } from "./commands/completion.js";
import { registerConfig } from "./commands/config.js";
import { registerConsolidate } from "./commands/consolidate.js";
import { registerContext } from "./commands/context.js";
import { registerDemo } from "./commands/demo.js";
import { registerForget } from "./commands/forget.js";
import { registerGet } from "./commands/get.js";
import { registerInit } from "./commands/init.js";
import { registerLifecycle } from "./commands/lifecycle.js";
import { registerMcp } from "./commands/mcp.js";
import { registerPromote } from "./commands/promote.js";
import { registerReindex } from "./commands/reindex.js";
import { registerSeal } from "./commands/seal.js";
import { registerSearch } from "./commands/search.js";
import { registerStatus } from "./commands/status.js";
import { registerSync } from "./commands/sync.js";
import { registerUi } from "./commands/ui.js";
import { registerUpdate } from "./commands/update.js";
import { registerWatch } from "./commands/watch.js";
import { setProgramIo } from "./context.js";
import { EXIT, type Io, processIo, reportError, usageError } from "./output.js";

const { version } = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
) as {
  version: string;
};

/** Build the `engram` command tree writing to `io`. */
export function createProgram(io: Io = processIo): Command {
  const program = new Command("engram")
    .description("Agent memory people can read: Markdown files, indexed for hybrid search")
    .version(version)
    .option(
      "-w, --workspace <dir>",
      "workspace folder (default: $ENGRAM_WORKSPACE, else the current folder)",
    )
    .option("--json", "print stable JSON instead of text")
    .option(
      "--store <driver>",
      "index store: sqlite | memory | lancedb | qdrant (default: store.driver in the config, $ENGRAM_STORE, else sqlite)",
    )
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Usage errors are reported by run(), one line or JSON like every other error.
      outputError: () => {},
    })
    .exitOverride();
  setProgramIo(program, io);
  for (const register of [
    registerInit,
    registerAdd,
    registerSearch,
    registerGet,
    registerContext,
    registerSeal,
    registerAudit,
    registerPromote,
    registerLifecycle,
    registerConsolidate,
    registerForget,
    registerUpdate,
    registerSync,
    registerWatch,
    registerMcp,
    registerStatus,
    registerReindex,
    registerDemo,
    registerUi,
    registerConfig,
    registerCompletion,
  ]) {
    register(program, io);
  }
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}

/** Run the CLI with `argv` (without the node and script entries); resolves to the exit code. */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  const program = createProgram(io);
  try {
    if (wantsCompletion(argv)) await withCompletion(program);
    await program.parseAsync([...argv], { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version were printed by Commander; a usage error is reported here.
      if (error.exitCode === 0) return EXIT.ok;
      if (error.code === "commander.help") return EXIT.usage; // no command given: help on stderr
      return reportError(io, usageError(program, argv, error), argv.includes("--json"));
    }
    return reportError(io, error, argv.includes("--json"));
  }
}
