import type { Memory, MemoryScope } from "@engram/core";
import type { WorkspaceListing } from "./data/listing.js";
import type { LiveEvents } from "./events.js";
import type { UiSecrets } from "./security/secrets.js";

/** Everything the routes share for one running page server. */
export interface UiContext {
  memory: Memory;
  secrets: UiSecrets;
  readOnly: boolean;
  /** The scope pages show when the request names none. */
  defaultScope: MemoryScope;
  /** The address the server listens on (`127.0.0.1` unless `--host` said otherwise). */
  bindHost: string;
  /** The port it listens on (known once it listens). */
  port: number;
  /** Session cookie name (per port: cookies are shared by every port of a host). */
  cookieName: string;
  listing: WorkspaceListing;
  events: LiveEvents;
  /** `bench/results` to chart on the health page, if any. */
  benchDir: string | undefined;
  /** URLs of the page's two assets (content-hashed, cached for good). */
  assets: { css: string; js: string };
}

/** Hono's per-request variables. */
export interface UiEnv {
  Variables: {
    /** How the request proved itself: the bearer token (scripts) or the session cookie (pages). */
    auth: "bearer" | "cookie";
    scope: MemoryScope;
  };
}
