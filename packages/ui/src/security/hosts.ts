import { isIP } from "node:net";

/** Host names that always mean this machine. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * The check against DNS rebinding: a page on another site that resolves its own name to
 * 127.0.0.1 reaches this server with `Host: evil.example:port`. Only these `Host` values are
 * served: `localhost`, any IP literal (an attacker's page cannot send its own name as one), and
 * the name given with `--host`, each with the server's port.
 */
export function hostAllowed(hostHeader: string | undefined, bound: string, port: number): boolean {
  if (!hostHeader) return false;
  const parsed = splitHost(hostHeader.toLowerCase());
  if (!parsed || parsed.port !== port) return false;
  const { name } = parsed;
  if (LOOPBACK_NAMES.has(name)) return true;
  if (isIP(name.replace(/^\[|\]$/g, "")) !== 0) return true;
  return name === bound.toLowerCase() || name === `[${bound.toLowerCase()}]`;
}

/**
 * True when `origin` (the `Origin` header) is this server as reached through `host` (an allowed
 * `Host` header): the same scheme, name and port. `null` and any other site are refused.
 */
export function sameOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" && url.host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

/** True for an address that only this machine can reach. */
export function isLoopback(address: string): boolean {
  return address === "localhost" || address === "::1" || /^127\./.test(address);
}

function splitHost(value: string): { name: string; port: number } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(value);
  if (!m) return null;
  return { name: m[1] as string, port: Number(m[2]) };
}
