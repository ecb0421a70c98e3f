import type { AddressInfo } from "node:net";
import { EngramError, type Memory, type MemoryScope } from "@engram/core";
import { createAdaptorServer } from "@hono/node-server";
import { createApp } from "./app.js";
import { loadAssets } from "./assets.js";
import type { UiContext } from "./context.js";
import { WorkspaceListing } from "./data/listing.js";
import { LiveEvents } from "./events.js";
import { isLoopback } from "./security/hosts.js";
import { createSecrets } from "./security/secrets.js";

/** When the watcher starts after the first page was served (its assets load meanwhile). */
const WATCH_GRACE_MS = 1_000;
/** When it starts if no page is asked for. */
const WATCH_IDLE_MS = 3_000;

/** How to serve the page. */
export interface UiOptions {
  /** The workspace's memory (opened by the caller, e.g. the CLI with its store and providers). */
  memory: Memory;
  /**
   * Address to listen on. Default `127.0.0.1`: only this machine. Another address (e.g.
   * `0.0.0.0`) must be asked for explicitly: anyone who can reach it and has the token can read
   * the memory.
   */
  host?: string;
  /** Port (default 0: any free port; the URL says which). */
  port?: number;
  /** Refuse (403) and hide every write. */
  readOnly?: boolean;
  /**
   * The scope pages show unless they ask for another: `group` (default) hides personal memory,
   * sensitive files and private spans; `main` shows them.
   */
  scope?: MemoryScope;
  /** Run core's watcher so changes appear live (default true). */
  watch?: boolean;
  /** A `bench/results` folder to chart on the health page. */
  benchDir?: string;
  /** The token (default: 256 random bits). Tests and scripts that start the page themselves may set it. */
  token?: string;
}

/** A running page server. */
export interface UiServer {
  /** The URL to open, with the token: print it, do not log it elsewhere. */
  url: string;
  /** `http://host:port`, without the token. */
  origin: string;
  /** The bearer token scripts send. */
  token: string;
  /**
   * Resolves once the watcher is delivering changes (at once without one). It starts a second
   * after the first page was served (or 3 s after the start): its first crawl of a large
   * workspace takes seconds and would slow the first page.
   */
  watching: Promise<void>;
  /** Stop serving: ends event streams, stops the watcher. Does not close the memory. */
  close(): Promise<void>;
}

/**
 * Serve the page over `memory`: the timeline, tiers, search, curation and health views and the
 * JSON API under `/api/`, behind a token (see `security/guard.ts`).
 *
 * @throws EngramError `INVALID_ARGUMENT` for a bad port; `CONFIG_INVALID` when the address cannot
 * be listened on (in use, not this machine's).
 */
export async function startUi(options: UiOptions): Promise<UiServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `port must be a whole number from 0 to 65535, got ${port}`,
      {
        hint: "for example --port 4780, or leave it out for any free port",
      },
    );
  }
  const { memory } = options;
  const secrets = createSecrets(options.token);
  const assets = await loadAssets();
  const events = new LiveEvents();
  const listing = new WorkspaceListing(memory.workspace, memory.config.extraPaths);
  const ctx: UiContext = {
    memory,
    secrets,
    readOnly: options.readOnly ?? false,
    defaultScope: options.scope ?? "group",
    bindHost: host,
    port,
    cookieName: "engram_ui",
    listing,
    events,
    benchDir: options.benchDir,
    assets: { css: assets.css, js: assets.js },
  };
  // What the page itself changes is shown at once, without waiting for the watcher.
  events.subscribe(() => listing.invalidate());
  const streams = new Set<() => void>();
  const app = createApp(ctx, assets, streams);
  let pageServed = () => {};
  const server = createAdaptorServer({
    fetch: async (request, env) => {
      const response = await app.fetch(request, env);
      pageServed();
      return response;
    },
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new EngramError(
          "CONFIG_INVALID",
          `cannot listen on ${host}:${port} (${error.code ?? error.message})`,
          {
            hint:
              error.code === "EADDRINUSE"
                ? "pick another --port, or leave it out for any free port"
                : "check --host names an address of this machine",
            cause: error,
          },
        ),
      );
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  ctx.port = address.port;
  ctx.cookieName = `engram_ui_${address.port}`;
  // The timeline's first request needs the workspace listing: start it now, while the URL is
  // printed, so the page opens without waiting for a walk of the tree.
  listing.files().catch(() => undefined);
  // The watcher starts once the first page is out (its first crawl would slow that page).
  let watching = Promise.resolve();
  if (options.watch !== false) {
    const later = events.watchLater(memory, () => listing.invalidate(), {
      graceMs: WATCH_GRACE_MS,
      idleMs: WATCH_IDLE_MS,
    });
    watching = later.ready;
    pageServed = later.pageServed;
  }
  // Every interface: the URL names this machine's loopback; an IPv6 address goes in brackets.
  const shownHost =
    host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const origin = `http://${shownHost}:${address.port}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/timeline?token=${secrets.token}`,
    origin,
    token: secrets.token,
    watching,
    close() {
      closing ??= (async () => {
        for (const stop of [...streams]) stop();
        await events.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ("closeAllConnections" in server) server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

/** True when `host` can only be reached from this machine (the page warns otherwise). */
export { isLoopback };
