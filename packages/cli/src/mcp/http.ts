import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EngramError } from "@engram/core";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createHttpGuard, type HttpGuardOptions } from "./http-guard.js";
import type { EngramMcpSession } from "./server.js";

/** Largest request body read (a `memory_write` is at most 50,000 characters). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A session with no request open (not even its notification stream) this long is closed. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;

/** Options of {@link serveMcpHttp}. */
export interface McpHttpOptions extends HttpGuardOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** A new MCP session (server + notifier) for a client that initializes. */
  newSession: () => EngramMcpSession;
  /** A session started or ended (for the log). */
  onSession?: (event: "open" | "close", id: string) => void;
  /** A request failed inside the transport (for the log). */
  onError?: (error: Error) => void;
  /**
   * Close a session once it has had no request open for this long (default
   * {@link SESSION_IDLE_MS}): a client that went away without `DELETE` does not hold its session
   * for ever. A client's open notification stream (GET) counts as a request.
   */
  idleMs?: number;
}

/** A running Streamable HTTP endpoint. */
export interface McpHttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:7345/mcp`. */
  url: string;
  /** The sessions open now. */
  readonly sessions: ReadonlyMap<string, EngramMcpSession>;
  /** Stop listening and close every session. */
  close(): Promise<void>;
}

/**
 * Serves MCP over Streamable HTTP at `/mcp` (the SDK's `StreamableHTTPServerTransport`, one per
 * session, each session its own `McpServer` over the same memory). Every request passes the
 * guard first (Host/Origin against DNS rebinding, the bearer token when there is one).
 */
export async function serveMcpHttp(options: McpHttpOptions): Promise<McpHttpServer> {
  const guard = createHttpGuard(options);
  const sessions = new Map<string, OpenSession>();
  const idleMs = options.idleMs ?? SESSION_IDLE_MS;
  /** Counts the request as open on `open` until its response is closed. */
  const track = (open: OpenSession, res: ServerResponse) => {
    open.inFlight++;
    res.once("close", () => {
      open.inFlight--;
      open.lastSeen = Date.now();
    });
  };
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const open of sessions.values()) {
        if (open.inFlight === 0 && now - open.lastSeen >= idleMs) void open.transport.close();
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const { pathname } = new URL(req.url ?? "/", "http://localhost");
    if (pathname !== "/mcp")
      return reply(res, 404, -32601, `no MCP endpoint at ${pathname}; use /mcp`);
    const refused = guard(req);
    if (refused) {
      const headers: Record<string, string> =
        refused.status === 401 ? { "WWW-Authenticate": 'Bearer realm="engram"' } : {};
      return reply(res, refused.status, -32001, refused.message, headers);
    }
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (body instanceof Error) return reply(res, 400, -32700, body.message);
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const open = sessions.get(id);
      if (!open) return reply(res, 404, -32001, `session ${id} not found; initialize a new one`);
      track(open, res);
      return open.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) {
      return reply(
        res,
        400,
        -32000,
        "no session: send an initialize request first, without Mcp-Session-Id",
      );
    }
    const session = options.newSession();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => {
        const open: OpenSession = { transport, session, inFlight: 0, lastSeen: Date.now() };
        sessions.set(sid, open);
        track(open, res);
        options.onSession?.("open", sid);
      },
    });
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && sessions.delete(sid)) options.onSession?.("close", sid);
    };
    if (options.onError) transport.onerror = options.onError;
    await session.server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      options.onError?.(error);
      if (!res.headersSent) reply(res, 500, -32603, error.message);
      else res.end();
    });
  });
  server.listen(options.port, options.host);
  await once(server, "listening").catch((error: NodeJS.ErrnoException) => {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `cannot listen on ${options.host}:${options.port} (${error.code ?? error.message})`,
      {
        hint:
          error.code === "EADDRINUSE"
            ? "another server uses that port: pass --port with a free one, or --port 0"
            : "pass an address of this machine with --host, e.g. 127.0.0.1",
        cause: error,
      },
    );
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/mcp`,
    get sessions() {
      return new Map([...sessions].map(([sid, open]) => [sid, open.session]));
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map(({ session }) => session.server.close()));
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A session's transport and server, and whether its client is still around. */
interface OpenSession {
  transport: StreamableHTTPServerTransport;
  session: EngramMcpSession;
  /** Requests of this session whose response is still open (a GET stream stays open). */
  inFlight: number;
  /** When the last request of this session ended (ms). */
  lastSeen: number;
}

/** The request body as JSON, or an Error saying why not (too large, not JSON). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return new Error("request body is not JSON");
  }
}

/** A JSON-RPC error response with an HTTP status. */
function reply(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
