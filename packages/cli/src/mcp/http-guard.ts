import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** True for an address or name that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** True for an address that listens on every interface. */
function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** Who may talk to the HTTP server. */
export interface HttpGuardOptions {
  /** The address the server listens on (`--host`). */
  host: string;
  /** The bearer token every request must carry; null: none (loopback only). */
  token: string | null;
  /** Further host names clients may use in `Host` and `Origin` (`--allow-host`). */
  allowedHosts?: readonly string[];
}

/** Why a request was refused: an HTTP status and a sentence. */
export interface Refusal {
  status: 401 | 403;
  message: string;
}

/**
 * The checks every request passes before it reaches MCP, against DNS rebinding and strangers:
 * - `Host` must name this server: a loopback name, the listening address, or an allowed host
 *   (any host when listening on every interface, where the token is what protects);
 * - `Origin`, when a browser sends one, must name the same hosts;
 * - the bearer token, when there is one, must match (compared in constant time).
 */
export function createHttpGuard(
  options: HttpGuardOptions,
): (req: IncomingMessage) => Refusal | null {
  const names = new Set([...LOOPBACK_NAMES, ...(options.allowedHosts ?? []).map(lower)]);
  const anyHost = isWildcard(options.host);
  if (!anyHost)
    names.add(
      lower(
        options.host.includes(":") && !options.host.startsWith("[")
          ? `[${options.host}]`
          : options.host,
      ),
    );
  const expected = options.token === null ? null : digest(options.token);
  const allowed = (hostname: string) =>
    anyHost || names.has(lower(hostname)) || isLoopbackHost(hostname);

  return (req) => {
    const host = req.headers.host;
    if (!host || !allowed(hostnameOf(host))) {
      return { status: 403, message: `Host header ${JSON.stringify(host ?? "")} is not allowed` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== "null") {
      let hostname: string;
      try {
        hostname = new URL(origin).hostname;
      } catch {
        return { status: 403, message: `Origin ${JSON.stringify(origin)} is not a URL` };
      }
      const bracketed = hostname.includes(":") ? `[${hostname}]` : hostname;
      if (!names.has(lower(bracketed)) && !isLoopbackHost(hostname)) {
        return { status: 403, message: `Origin ${origin} is not allowed` };
      }
    } else if (origin === "null") {
      return { status: 403, message: "Origin null is not allowed" };
    }
    if (expected) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
      if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
        return {
          status: 401,
          message: "a valid bearer token is required (Authorization: Bearer <token>)",
        };
      }
    }
    return null;
  };
}

/** The host name of a `Host` header (`[::1]:7345` → `[::1]`, `localhost:7345` → `localhost`). */
function hostnameOf(host: string): string {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  return host.split(":")[0] ?? host;
}

const lower = (s: string) => s.toLowerCase();
const digest = (s: string) => createHash("sha256").update(s).digest();
