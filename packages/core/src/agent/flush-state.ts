import { readFile } from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { writeFileAtomic } from "../workspace/atomic.js";
import { INDEX_DIR } from "../workspace/layout.js";
import { withWorkspaceLock } from "../workspace/lock.js";

/** Default state file of the flush policy, workspace-relative. */
export const SESSIONS_STATE_FILE = `${INDEX_DIR}/sessions.json`;

/** An entry a flush wrote, remembered so the same text is not written twice in one cycle. */
export interface FlushWrite {
  /** sha256 of the normalised text and the target. */
  hash: string;
  path: string;
  startLine: number;
  endLine: number;
}

/** What the state file remembers about one session's flushes. */
export interface SessionFlushState {
  /** The compaction cycle that last got its flush, and when. */
  flushed?: { cycle: number; at: string };
  /** Entries written by flushes during `cycle`. */
  writes?: { cycle: number; entries: FlushWrite[] };
}

/** The state file: one record per session id (other keys written by other features are kept). */
interface SessionsFile {
  version: 1;
  sessions: Record<string, { flush?: SessionFlushState } & Record<string, unknown>>;
}

/**
 * The per-session state file (`.engram/sessions.json` by default). Reads are lock-free; every
 * change is read-modify-write under the workspace lock `sessions` and lands by atomic rename, so
 * concurrent agents in several processes never lose each other's records and a crash leaves the
 * old file or the new one.
 */
export class SessionStateFile {
  readonly file: string;
  readonly #workspace: string;

  constructor(workspace: string, file: string = SESSIONS_STATE_FILE) {
    this.#workspace = workspace;
    this.file = path.resolve(workspace, file);
  }

  /** The flush state of `sessionId` (empty when the session is new). */
  async get(sessionId: string): Promise<SessionFlushState> {
    const data = await this.#read();
    return own(data.sessions, sessionId)?.flush ?? {};
  }

  /**
   * Runs `fn` on the session's flush state while holding the lock and saves what it leaves
   * (only when it changed). Returns `fn`'s result.
   */
  async update<T>(sessionId: string, fn: (state: SessionFlushState) => Promise<T> | T): Promise<T> {
    return withWorkspaceLock(this.#workspace, "sessions", async () => {
      const data = await this.#read();
      const record = own(data.sessions, sessionId) ?? {};
      const state: SessionFlushState = structuredClone(record.flush ?? {});
      const before = JSON.stringify(state);
      const result = await fn(state);
      if (JSON.stringify(state) !== before) {
        data.sessions[sessionId] = { ...record, flush: state };
        await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`);
      }
      return result;
    });
  }

  /** The file's content; missing → empty. Unreadable JSON is treated as empty (it is state, not memory). */
  async #read(): Promise<SessionsFile> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return empty();
      throw new EngramError(
        "STORE_FAILED",
        `cannot read ${this.file}: ${(error as Error).message}`,
        {
          hint: "check the file's permissions, or delete it (it only tracks flushes)",
          cause: error,
        },
      );
    }
    try {
      const parsed = JSON.parse(text) as Partial<SessionsFile>;
      if (parsed && typeof parsed.sessions === "object" && parsed.sessions !== null) {
        return { version: 1, sessions: Object.assign(Object.create(null), parsed.sessions) };
      }
    } catch {
      // fall through: a damaged state file costs at most one extra flush
    }
    return empty();
  }
}

function empty(): SessionsFile {
  return { version: 1, sessions: Object.create(null) };
}

function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
