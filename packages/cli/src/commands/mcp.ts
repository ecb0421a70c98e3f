import type { Writable } from "node:stream";
import { createMemoryTools, startMaintenance } from "@engram/core";
import type { Command } from "commander";
import { globals } from "../context.js";
import type { Io } from "../output.js";
import { openMemory, workspaceDir } from "../workspace.js";
import { describeSync } from "./sync.js";

/**
 * `engram mcp`: serve `memory_search`, `memory_get` and `memory_write` to an MCP client over
 * stdio until the client closes stdin (or SIGINT/SIGTERM). stdout carries only the protocol;
 * every log line goes to stderr. The index is brought up to date in the background (searches
 * answer from the index as it is meanwhile) and, unless `--no-watch`, kept fresh while files change.
 */
export function registerMcp(program: Command, io: Io): void {
  program
    .command("mcp")
    .description(
      "serve the memory tools to an MCP client (Claude Desktop, IDEs, agents) over stdio",
    )
    .option("--read-only", "serve memory_search and memory_get only (no memory_write)")
    .option("--no-watch", "do not watch the files (only what engram writes is re-indexed)")
    .action(async (flags: { readOnly?: boolean; watch: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const log = (text: string) => io.stderr.write(`engram mcp: ${text}\n`);
      // The MCP SDK is loaded here, not at start-up: it costs every other command ~0.3 s.
      const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
      const { createMcpServer } = await import("../mcp-server.js");
      const memory = await openMemory(workspaceDir(g.workspace), { store: g.store });
      const stops: (() => void)[] = [];
      let stopMaintenance: () => Promise<void> = async () => {};
      try {
        const tools = createMemoryTools(memory, { readOnly: flags.readOnly === true });
        const server = createMcpServer(tools, {
          name: "engram",
          version: program.version() ?? "0",
        });
        server.onerror = (error) => log(`protocol error: ${error.message}`);
        const done = new Promise<void>((resolve) => {
          server.onclose = resolve;
          for (const signal of ["SIGINT", "SIGTERM"] as const) {
            process.once(signal, resolve);
            stops.push(() => process.off(signal, resolve));
          }
          for (const event of ["end", "close"] as const) {
            process.stdin.once(event, resolve);
            stops.push(() => process.stdin.off(event, resolve));
          }
        });
        await server.connect(new StdioServerTransport(process.stdin, io.stdout as Writable));
        log(
          `serving ${memory.workspace}: ${tools.definitions.map((d) => d.name).join(", ")}` +
            (memory.embedder ? "" : " (no embedding provider: keyword search)"),
        );
        if (flags.watch) {
          memory.watch({ onError: (error) => log(`sync failed: ${(error as Error).message}`) });
        }
        // Lifecycle rules and consolidation on the config's schedule (one process runs each).
        const maintenance = startMaintenance(memory, {
          onRun: (run) => log(`maintenance (${run.trigger}): ${run.outcome}`),
          onError: (error) => log(`maintenance failed: ${(error as Error).message}`),
        });
        stopMaintenance = () => maintenance.stop();
        memory.sync().then(
          (report) => report && log(describeSync(report)),
          (error: Error) => log(`sync failed: ${error.message}`),
        );
        await done;
        await server.close();
      } finally {
        for (const stop of stops) stop();
        await stopMaintenance();
        await memory.close();
      }
    });
}
