import { EngramError } from "../errors.js";

/**
 * Socket and undici error codes of a request that failed before any answer arrived: the server
 * could not be reached, or the connection broke. Found on the error or, for `fetch`'s
 * `TypeError: fetch failed`, on its `cause`.
 */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);

/** undici's codes for a server that accepted the request but did not answer in time. */
const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** A request that failed before any answer: see {@link transportFailure}. */
export interface TransportFailure {
  /** `timeout`: no answer in time; `network`: unreachable, refused, reset or unresolvable. */
  kind: "network" | "timeout";
  /** The system or undici error code (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`), if one was given. */
  code: string | undefined;
}

/**
 * How a request over HTTP failed before any answer arrived, read from the error and its `cause`
 * chain the way Node's `fetch` (undici) reports it: `timeout` for undici's connect, headers and
 * body timeouts and an `AbortSignal.timeout()` abort (`TimeoutError`); `network` for a refused,
 * reset or unresolvable connection and for `TypeError: fetch failed`. Undefined for anything else
 * (an HTTP answer, a bug), which is the caller's to classify. Both kinds are worth retrying.
 */
export function transportFailure(error: unknown): TransportFailure | undefined {
  let network: TransportFailure | undefined;
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && TIMEOUT_CODES.has(code)) return { kind: "timeout", code };
    if ((e as { name?: unknown }).name === "TimeoutError")
      return { kind: "timeout", code: undefined };
    if (typeof code === "string" && NETWORK_CODES.has(code)) network = { kind: "network", code };
    else if (!network && e instanceof TypeError && /fetch failed|network/i.test(e.message)) {
      network = { kind: "network", code: undefined };
    }
    e = (e as { cause?: unknown }).cause;
  }
  return network;
}

/**
 * The first line of an error's message, at most `max` characters: what a driver quotes of a
 * backend's error in its own message (backends put stack-like detail on the lines after).
 */
export function errorSummary(error: unknown, max = 300): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split("\n", 1)[0] ?? message;
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** What went wrong in a store's backend, for {@link storeFailedError}. */
export interface StoreFailure {
  /** What the store was doing, completing "Could not …": `search the index`. */
  action: string;
  /** What went wrong: `the server did not answer (ECONNREFUSED)`. */
  problem: string;
  /** Which store: `Qdrant at http://localhost:6333, collection engram_1a2b3c4d`. */
  where: string;
  /** The fix. */
  hint: string;
  cause?: unknown;
}

/**
 * The `STORE_FAILED` error every driver throws for a backend failure, worded one way:
 * `Could not <action>: <problem> (<where>).` with the fix as its hint.
 */
export function storeFailedError(failure: StoreFailure): EngramError {
  const { action, problem, where, hint, cause } = failure;
  return new EngramError("STORE_FAILED", `Could not ${action}: ${problem} (${where}).`, {
    hint,
    cause,
  });
}

/** A layout version a store found that is newer than its package knows, for {@link newerLayoutError}. */
export interface NewerLayout {
  /** The storage, completing "The …": `Qdrant index engram_1a2b at http://localhost:6333`. */
  store: string;
  /** The version recorded there, as found. */
  found: string | number;
  /** The package and the newest version it understands: `@engram/store-qdrant (layout 1)`. */
  reader: string;
  /** Where the data can go instead, completing "Upgrade engram, or …". */
  instead: string;
}

/**
 * The `STORE_FAILED` error for storage written by a newer version of a driver: the data may mean
 * something this one does not know, so it is refused untouched.
 */
export function newerLayoutError(layout: NewerLayout): EngramError {
  return new EngramError(
    "STORE_FAILED",
    `The ${layout.store} has layout version ${layout.found}, which this ${layout.reader} does not understand.`,
    { hint: `Upgrade engram, or ${layout.instead}` },
  );
}
