import { EngramError, warmUp } from "@engram/core";
import type { Command } from "commander";
import { globals, positiveInt } from "../context.js";
import { type Io, line } from "../output.js";
import { stopSignal } from "../stop-signal.js";
import { openMemory, workspaceDir } from "../workspace.js";
import { describeSync, describeWarmUp } from "./sync.js";

interface UiFlags {
  port?: string;
  host?: string;
  open: boolean;
  readOnly?: boolean;
  scope?: string;
  watch: boolean;
  benchDir?: string;
}

/**
 * `engram ui`: serve the memory as a local web page (package `@engram/ui`) until Ctrl-C. The
 * first line of stdout is the URL with its one-time token (`--json`: `{"url": …}`); everything
 * else goes to stderr.
 */
export function registerUi(program: Command, io: Io): void {
  program
    .command("ui")
    .description(
      "a local web page to read, search and curate memory (timeline, tiers, search, curate, health)",
    )
    .option("--port <n>", "port to listen on (default: any free port)")
    .option("--host <address>", "address to listen on (default 127.0.0.1: this machine only)")
    .option("--no-open", "do not open the page in a browser")
    .option("--read-only", "hide and refuse every write (apply, undo, forget, edit)")
    .option(
      "--scope <scope>",
      "scope pages show by default: group (hides personal and private memory) | main",
    )
    .option("--no-watch", "do not watch the files (the page is not updated live)")
    .option(
      "--bench-dir <dir>",
      "bench/results folder to chart on the health page (default: ./bench/results if present)",
    )
    .action(async (flags: UiFlags, cmd: Command) => {
      const g = globals(cmd);
      const port = flags.port === "0" ? 0 : (positiveInt("--port", flags.port) ?? 0);
      if (flags.scope !== undefined && flags.scope !== "main" && flags.scope !== "group") {
        throw new EngramError(
          "INVALID_ARGUMENT",
          `--scope must be main or group, got "${flags.scope}"`,
          {
            hint: "for example --scope main",
          },
        );
      }
      const log = (text: string) => io.stderr.write(`engram ui: ${text}\n`);
      // The page server is loaded here, not at start-up, like the MCP SDK.
      const { startUi, isLoopback, openBrowser, defaultBenchDir } = await import("@engram/ui");
      const memory = await openMemory(workspaceDir(g.workspace), {
        store: g.store,
        longLived: true,
      });
      try {
        for (const text of memory.warnings) log(`warning: ${text}`);
        const benchDir = flags.benchDir ?? (await defaultBenchDir(process.cwd()));
        const ui = await startUi({
          memory,
          ...(flags.host !== undefined ? { host: flags.host } : {}),
          port,
          readOnly: flags.readOnly === true,
          ...(flags.scope ? { scope: flags.scope as "main" | "group" } : {}),
          watch: flags.watch,
          ...(benchDir ? { benchDir } : {}),
        });
        line(io, g.json ? JSON.stringify({ url: ui.url }) : ui.url);
        log(`serving ${memory.workspace}${flags.readOnly ? " (read-only)" : ""}; Ctrl-C to stop`);
        if (flags.host !== undefined && !isLoopback(flags.host)) {
          log(
            `warning: listening on ${flags.host}: anyone who can reach it and has the token can read this memory`,
          );
        }
        memory
          .sync({ wait: false })
          .then(
            (report) => report && log(describeSync(report)),
            (error: Error) => log(`sync failed: ${error.message}`),
          )
          .then(() => warmUp(memory))
          .then((warm) => log(describeWarmUp(warm)));
        const stop = stopSignal();
        if (flags.open)
          openBrowser(ui.url).catch(() => log("could not open a browser: open the URL above"));
        await stop.stopped;
        await ui.close();
      } finally {
        await memory.close();
      }
    });
}
