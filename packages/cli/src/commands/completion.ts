import type { Command } from "commander";

const SHELLS = ["bash", "zsh", "fish", "powershell"];

/**
 * `engram completion bash|zsh|fish|powershell` as help lists it. The real commands come from
 * @bomb.sh/tab, loaded only when one of them runs ({@link withCompletion}): the script it prints
 * asks `engram complete -- <words>` for candidates at each Tab, so every command and option,
 * including ones added later, completes without regenerating the script.
 */
export function registerCompletion(program: Command): void {
  program
    .command("completion")
    .description(
      `print a shell completion script: ${SHELLS.join(" | ")} (e.g. source <(engram completion bash))`,
    )
    .argument("<shell>", SHELLS.join(" | "));
}

/** True when `argv` runs `completion` or the hidden `complete` that completion scripts call. */
export function wantsCompletion(argv: readonly string[]): boolean {
  return argv[0] === "completion" || argv[0] === "complete";
}

/** Replace the help-only `completion` command with @bomb.sh/tab's `completion` and `complete`. */
export async function withCompletion(program: Command): Promise<void> {
  const commands = program.commands as Command[];
  const stub = commands.findIndex((c) => c.name() === "completion");
  if (stub >= 0) commands.splice(stub, 1);
  const { default: tab } = await import("@bomb.sh/tab/commander");
  tab(program, { completionCommandName: "completion" });
  for (const cmd of program.commands) cmd.exitOverride();
}
