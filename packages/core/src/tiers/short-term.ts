import { EngramError } from "../errors.js";
import type { AppendResult } from "../workspace/append.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { THREE_TIER_PATHS } from "../workspace/presets.js";
import { invalidJson, readJson, readTextIfExists, writeJson, writeText } from "./files.js";
import type { TierHost } from "./host.js";
import { assertName, assertText } from "./names.js";

/** One short-term value as stored in `memory/short-term/kv.json`. */
export interface ShortTermEntry {
  value: unknown;
  /** When it stops being readable (ISO 8601), or null: until cleared. */
  expiresAt: string | null;
  updatedAt: string;
}

/** Short-term memory: key/value scratch state with a time to live, and the session files. */
export interface ShortTermApi {
  /** The value of `key`, or undefined when it was never set, was cleared or has expired. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /**
   * Sets `key` to `value` (anything JSON can hold), readable for `ttlSeconds` (default: until
   * cleared). Expired entries are dropped from the file by this write.
   */
  set(key: string, value: unknown, ttlSeconds?: number): Promise<ShortTermEntry>;
  /** Removes `key`, or every key when none is given; resolves to how many were removed. */
  clear(key?: string): Promise<number>;
  /** The keys that are readable now, sorted. */
  keys(): Promise<string[]>;
  /**
   * Appends a timestamped entry to `memory/short-term/current-session.md`, or to
   * `memory/short-term/sessions/<sessionId>.md` when `sessionId` is given (what lifecycle
   * `archive(sessionId)` moves). Locked `O_APPEND` write; never rewrites the file.
   */
  appendSession(text: string, options?: { sessionId?: string }): Promise<AppendResult>;
  /** The text of the current-session file (or of session `sessionId`); "" when it has none. */
  readSession(options?: { sessionId?: string }): Promise<string>;
}

const KV = THREE_TIER_PATHS.kv;
const KV_LOCK = "tiers:short-term-kv";
const MAX_KEY_LENGTH = 256;

/** The short-term API over `host`'s workspace. See {@link ShortTermApi}. */
export function createShortTermApi(host: TierHost): ShortTermApi {
  const ws = host.workspace;
  const now = () => host.clock.now();

  const load = async (): Promise<Map<string, ShortTermEntry>> => {
    const data = await readJson(ws, KV, {});
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      throw invalidJson(KV, "it must hold a JSON object of key → entry");
    }
    const entries = new Map<string, ShortTermEntry>();
    for (const [key, raw] of Object.entries(data)) entries.set(key, toEntry(raw));
    return entries;
  };
  const live = (entries: Map<string, ShortTermEntry>): Map<string, ShortTermEntry> => {
    const t = now().getTime();
    return new Map([...entries].filter(([, e]) => !isExpired(e, t)));
  };
  const save = (entries: Map<string, ShortTermEntry>) =>
    writeJson(ws, KV, Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : 1))));
  const sessionFile = (sessionId: string | undefined): string =>
    sessionId === undefined
      ? THREE_TIER_PATHS.currentSession
      : `${THREE_TIER_PATHS.sessionsDir}/${assertName("session id", sessionId, "2026-01-02-a1")}.md`;

  return {
    async get<T>(key: string): Promise<T | undefined> {
      assertKey(key);
      const entry = (await load()).get(key);
      return entry && !isExpired(entry, now().getTime()) ? (entry.value as T) : undefined;
    },

    async set(key, value, ttlSeconds) {
      assertKey(key);
      const stored = jsonValue(value);
      const ttl = assertTtl(ttlSeconds);
      return withWorkspaceLock(ws, KV_LOCK, async () => {
        const entries = live(await load());
        const at = now();
        const entry: ShortTermEntry = {
          value: stored,
          expiresAt: ttl === null ? null : new Date(at.getTime() + ttl * 1000).toISOString(),
          updatedAt: at.toISOString(),
        };
        entries.set(key, entry);
        await save(entries);
        return entry;
      });
    },

    async clear(key) {
      if (key !== undefined) assertKey(key);
      return withWorkspaceLock(ws, KV_LOCK, async () => {
        const all = await load();
        const entries = live(all);
        const removed = key === undefined ? entries.size : entries.has(key) ? 1 : 0;
        if (key === undefined) entries.clear();
        else entries.delete(key);
        if (all.size !== entries.size) await save(entries);
        return removed;
      });
    },

    async keys() {
      return [...live(await load()).keys()].sort();
    },

    async appendSession(text, options = {}) {
      const body = assertText("session text", text);
      const file = sessionFile(options.sessionId);
      // Create it with its own title first, under the lock the append takes next.
      await withWorkspaceLock(ws, `append:${file}`, async () => {
        if ((await readTextIfExists(ws, file)) === null) {
          const title = options.sessionId ? `Session ${options.sessionId}` : "Current session";
          await writeText(ws, file, `# ${title}\n\n`);
        }
      });
      return host.appendLongTerm(body, { file });
    },

    async readSession(options = {}) {
      return (await readTextIfExists(ws, sessionFile(options.sessionId))) ?? "";
    },
  };
}

/** An entry as written by hand may be a bare value: it then never expires. */
function toEntry(raw: unknown): ShortTermEntry {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw) && "value" in raw) {
    const r = raw as Record<string, unknown>;
    return {
      value: r.value,
      expiresAt: typeof r.expiresAt === "string" ? r.expiresAt : null,
      updatedAt: typeof r.updatedAt === "string" ? r.updatedAt : "",
    };
  }
  return { value: raw, expiresAt: null, updatedAt: "" };
}

/** An unparseable `expiresAt` never expires: a typo must not delete data. */
function isExpired(entry: ShortTermEntry, nowMs: number): boolean {
  if (entry.expiresAt === null) return false;
  const at = Date.parse(entry.expiresAt);
  return !Number.isNaN(at) && at <= nowMs;
}

function assertKey(key: unknown): asserts key is string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  const bad = /[\u0000-\u001f\u007f]/;
  if (typeof key !== "string" || key === "" || key.length > MAX_KEY_LENGTH || bad.test(key)) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `short-term key ${JSON.stringify(key)} is not allowed`,
      {
        hint: `use a non-empty key of at most ${MAX_KEY_LENGTH} characters without control characters, e.g. "current_topic"`,
      },
    );
  }
}

function assertTtl(ttl: unknown): number | null {
  if (ttl === undefined || ttl === null) return null;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `ttl must be a positive number of seconds, got ${String(ttl)}`,
      {
        hint: "pass e.g. 3600 for one hour, or leave it out to keep the value until cleared",
      },
    );
  }
  return ttl;
}

/** `value` as it reads back from JSON, or an error when JSON cannot hold it. */
function jsonValue(value: unknown): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `value cannot be stored as JSON: ${(error as Error).message}`,
      {
        hint: "store plain data: strings, numbers, booleans, null, arrays and objects",
      },
    );
  }
  if (json === undefined) {
    throw new EngramError("INVALID_ARGUMENT", `value cannot be stored as JSON (${typeof value})`, {
      hint: "store plain data; to remove a key, call clear(key)",
    });
  }
  return JSON.parse(json);
}
