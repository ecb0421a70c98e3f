import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";
import {
  createMemoryTools,
  EngramError,
  guardedToolsHost,
  type Memory,
  startMaintenance,
  ToolPrivacy,
  warmUp,
} from "@engram/core";
import type { Command } from "commander";
import { globals, positiveInt } from "../context.js";
import type { Io } from "../output.js";
import { stopSignal } from "../stop-signal.js";
import { openMemory, workspaceDir } from "../workspace.js";
import { describeSync, describeWarmUp } from "./sync.js";

/** Port of `engram mcp --http` when none is given. */
export const DEFAULT_MCP_PORT = 7345;

/** Environment variable holding the bearer token of `engram mcp --http`. */
export const MCP_TOKEN_ENV = "ENGRAM_MCP_TOKEN";

interface McpFlags {
  readOnly?: boolean;
  watch: boolean;
  http?: boolean;
  port?: string;
  host: string;
  allowHost?: string[];
  scope: string;
  unlock?: boolean;
}

/**
 * `engram mcp`: serve engram's memory to MCP clients — every memory tool, the memory files as
 * `memory://` resources, and the `recall` / `flush` prompts — over stdio (one client; stdout
 * carries only the protocol, logs go to stderr) or, with `--http`, over Streamable HTTP (any
 * number of clients sharing this process's one index). Runs until stdin closes (stdio) or
 * SIGINT/SIGTERM. The index is synced in the background and, unless `--no-watch`, kept fresh;
 * watcher events become resource notifications.
 */
export function registerMcp(program: Command, io: Io): void {
  program
    .command("mcp")
    .description(
      "serve memory tools, files and prompts to MCP clients (Claude, Cursor, VS Code, agents) over stdio or --http",
    )
    .option("--read-only", "serve only the tools that change nothing (no memory_write)")
    .option("--no-watch", "do not watch the files (only what engram writes is re-indexed)")
    .option("--http", "serve over Streamable HTTP (several clients, one index) instead of stdio")
    .option("--port <n>", `HTTP port (default ${DEFAULT_MCP_PORT}; 0 picks a free one)`)
    .option(
      "--host <address>",
      "HTTP address to listen on (loopback unless you need otherwise)",
      "127.0.0.1",
    )
    .option(
      "--allow-host <name...>",
      "further host names clients may use in Host/Origin (e.g. a LAN name for --host 0.0.0.0)",
    )
    .option(
      "--scope <scope>",
      "main (the user's own client) | group (a shared conversation: nothing personal, sensitive or private)",
      "main",
    )
    .option(
      "--unlock",
      "open sensitive long-term memory to this session (when privacy.unlock is required)",
    )
    .action(async (flags: McpFlags, cmd: Command) => {
      const g = globals(cmd);
      if (flags.scope !== "main" && flags.scope !== "group") {
        throw new EngramError(
          "INVALID_ARGUMENT",
          `--scope must be main or group, got "${flags.scope}"`,
          {
            hint: "for example --scope group",
          },
        );
      }
      const scope = flags.scope;
      const log = (text: string) => io.stderr.write(`engram mcp: ${text}\n`);
      const port = httpPort(flags, cmd);
      // The MCP SDK is loaded here, not at start-up: it costs every other command ~0.3 s.
      const { createEngramMcpServer } = await import("../mcp/server.js");
      const { ResourceChanges } = await import("../mcp/changes.js");
      const memory = await openMemory(workspaceDir(g.workspace), {
        store: g.store,
        longLived: true,
      });
      const stops: (() => unknown)[] = [];
      try {
        const readOnly = flags.readOnly === true;
        const tools = createMemoryTools(memory, {
          readOnly,
          scope,
          unlocked: flags.unlock === true,
        });
        // Resources are read through the same privacy guard as memory_get (scope, unlock).
        const guarded = guardedToolsHost(
          memory,
          new ToolPrivacy(memory, { scope, unlocked: flags.unlock === true }),
        );
        const files = {
          workspace: memory.workspace,
          config: memory.config,
          layout: memory.layout,
          clock: memory.clock,
          get: guarded.get,
        };
        const info = { name: "engram", version: program.version() ?? "0" };
        const changes = new ResourceChanges(memory.workspace);
        stops.push(() => changes.close());
        const newSession = () => {
          // The user's own client: the main scope; --scope group applies core's group-scope rules.
          const session = createEngramMcpServer({ tools, memory: files, scope, readOnly, info });
          const forget = changes.add(session.resources);
          session.server.server.onclose = forget;
          session.server.server.onerror = (error) => log(`protocol error: ${error.message}`);
          return session;
        };
        const done = stopOrHangUp(stops, !flags.http);

        if (flags.http) {
          const { serveMcpHttp } = await import("../mcp/http.js");
          const token = httpToken(io.env, flags.host);
          const http = await serveMcpHttp({
            host: flags.host,
            port,
            token: token.value,
            allowedHosts: flags.allowHost ?? [],
            newSession,
            onSession: (event, id) =>
              log(`session ${id} ${event === "open" ? "opened" : "closed"}`),
            onError: (error) => log(`request failed: ${error.message}`),
          });
          stops.push(() => http.close());
          log(
            `serving ${memory.workspace} at ${http.url} (${describeTools(tools.definitions, memory)})`,
          );
          if (token.generated)
            log(`bearer token (set ${MCP_TOKEN_ENV} to choose it): ${token.value}`);
          else if (token.value) log(`bearer token from ${MCP_TOKEN_ENV} required`);
        } else {
          const { StdioServerTransport } = await import(
            "@modelcontextprotocol/sdk/server/stdio.js"
          );
          const session = newSession();
          await session.server.connect(
            new StdioServerTransport(process.stdin, io.stdout as Writable),
          );
          stops.push(() => session.server.close());
          log(`serving ${memory.workspace}: ${describeTools(tools.definitions, memory)}`);
        }

        // Background work lives beside the server and stops with it: the watcher, and the
        // scheduled maintenance (lifecycle rules, consolidation; one process runs it at a time).
        stops.push(startBackground(memory, flags.watch, changes, log));
        await done;
      } finally {
        for (const stop of stops.reverse()) await stop();
        await memory.close();
      }
    });
}

/**
 * Sync in the background and, when asked, watch the files (their events notify clients); run
 * maintenance on the config's schedule. Returns what stops the maintenance.
 */
function startBackground(
  memory: Memory,
  watch: boolean,
  changes: { note(event: string, path: string): void },
  log: (text: string) => void,
): () => Promise<void> {
  if (watch) {
    memory.watch({
      onChange: (event, path) => changes.note(event, path),
      onError: (error) => log(`sync failed: ${(error as Error).message}`),
    });
  }
  // Then ready the first search: the in-memory index loaded, the search code run once.
  memory
    .sync()
    .then(
      (report) => report && log(describeSync(report)),
      (error: Error) => log(`sync failed: ${error.message}`),
    )
    .then(() => warmUp(memory))
    .then((warm) => log(describeWarmUp(warm)));
  const maintenance = startMaintenance(memory, {
    onRun: (run) => log(`maintenance (${run.trigger}): ${run.outcome}`),
    onError: (error) => log(`maintenance failed: ${(error as Error).message}`),
  });
  return () => maintenance.stop();
}

/** Resolves on SIGINT/SIGTERM, or (stdio) when the client closes stdin. */
function stopOrHangUp(stops: (() => unknown)[], stdio: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const signal = stopSignal();
    signal.stopped.then(resolve);
    stops.push(() => signal.release());
    if (!stdio) return;
    for (const event of ["end", "close"] as const) {
      process.stdin.once(event, resolve);
      stops.push(() => process.stdin.off(event, resolve));
    }
  });
}

/**
 * The bearer token: `ENGRAM_MCP_TOKEN` when set; otherwise none on a loopback address and a fresh
 * random one (printed at start) on any other.
 */
function httpToken(
  env: NodeJS.ProcessEnv,
  host: string,
): { value: string | null; generated: boolean } {
  const given = env[MCP_TOKEN_ENV]?.trim();
  if (given && !/^[\x21-\x7e]{16,}$/.test(given)) {
    throw new EngramError("CONFIG_INVALID", `${MCP_TOKEN_ENV} is not a usable bearer token`, {
      hint: "use at least 16 visible ASCII characters (HTTP headers carry nothing else), e.g. openssl rand -base64 24",
    });
  }
  if (given) return { value: given, generated: false };
  if (isLoopback(host)) return { value: null, generated: false };
  return { value: randomBytes(24).toString("base64url"), generated: true };
}

/** The `--port` of `--http` (0 picks a free one); the HTTP options are refused without `--http`. */
function httpPort(flags: McpFlags, cmd: Command): number {
  const httpOnly = [
    flags.port !== undefined && "--port",
    cmd.getOptionValueSource("host") === "cli" && "--host",
    flags.allowHost !== undefined && "--allow-host",
  ].filter(Boolean);
  if (!flags.http && httpOnly.length > 0) {
    throw new EngramError("INVALID_ARGUMENT", `${httpOnly.join(", ")} only apply to --http`, {
      hint: "add --http to serve over Streamable HTTP, or leave them out for stdio",
    });
  }
  if (flags.port === "0") return 0;
  const port = positiveInt("--port", flags.port) ?? DEFAULT_MCP_PORT;
  if (port > 65_535) {
    throw new EngramError("INVALID_ARGUMENT", `--port must be at most 65535, got ${port}`, {
      hint: `pass a free port such as ${DEFAULT_MCP_PORT}, or 0 to pick one`,
    });
  }
  return port;
}

function isLoopback(host: string): boolean {
  return ["localhost", "127.0.0.1", "::1", "[::1]"].includes(host) || /^127(\.\d+){3}$/.test(host);
}

function describeTools(definitions: readonly { name: string }[], memory: Memory): string {
  return (
    definitions.map((d) => d.name).join(", ") +
    (memory.embedder ? "" : " (no embedding provider: keyword search)")
  );
}
