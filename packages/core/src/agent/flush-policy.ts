import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { type MaintenanceRun, noteSessionEnd } from "../consolidation/maintenance.js";
import { EngramError } from "../errors.js";
import type { Memory } from "../memory.js";
import { sha256Hex } from "../text/hash.js";
import { type Clock, localDate, systemClock } from "../workspace/clock.js";
import { isDailyLogPath } from "../workspace/layout.js";
import {
  DEFAULT_FLUSH_SYSTEM_PROMPT,
  DEFAULT_FLUSH_USER_PROMPT,
  fillDate,
  isNoReply,
} from "./flush-prompts.js";
import { SessionStateFile } from "./flush-state.js";
import type { MemoryToolsHost } from "./tool-spec.js";
import type { WriteToolResult } from "./tool-write.js";
import { createMemoryTools, type MemoryTools } from "./tools.js";
import { parseToolArgs } from "./tools-args.js";

/** Built-in flush defaults (the seeds'); the config's `flush` section overrides them. */
export const FLUSH_DEFAULTS = {
  reserveTokensFloor: 20_000,
  softThresholdTokens: 4_000,
} as const;

/** What the flush policy needs of a {@link Memory} (a `Memory` is one). */
export type FlushHost = MemoryToolsHost &
  Pick<Memory, "workspace"> &
  Partial<Pick<Memory, "runMaintenance">> & {
    config?: {
      flush?: Partial<Memory["config"]["flush"]>;
      maintenance?: Partial<Memory["config"]["maintenance"]>;
    };
  };

/** Options of {@link createFlushPolicy}; unset values come from `memory.config.flush`, then the defaults. */
export interface FlushPolicyOptions {
  /** The memory the flush writes to (its workspace holds the state file). */
  memory: FlushHost;
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Tokens kept free for the compaction itself (default 20,000). */
  reserveTokensFloor?: number;
  /** How far before the reserve the flush fires (default 4,000). */
  softThresholdTokens?: number;
  /** false: never flush. Default: the config's `flush.enabled` (true). */
  enabled?: boolean;
  /**
   * The agent may not write to the workspace (the seeds' `workspaceAccess: "ro"`): flushes are
   * skipped. Without it, a workspace the process cannot write to is detected and skipped too.
   */
  readOnly?: boolean;
  /** State file, absolute or workspace-relative. Default `.engram/sessions.json`. */
  stateFile?: string;
  systemPrompt?: string;
  /** `YYYY-MM-DD` in it becomes today's date. */
  userPrompt?: string;
  /** Source of "today" for the prompt (pass the clock given to `createMemory`). */
  clock?: Clock;
  /**
   * {@link FlushPolicy.endSession} runs maintenance (lifecycle rules and a consolidation pass)
   * when the `maintenance.gates` pass. Default: the config's `maintenance.onSessionEnd` (false).
   */
  consolidateOnSessionEnd?: boolean;
}

/** Why {@link FlushPolicy.shouldFlush} answered as it did. */
export type FlushReason = "due" | "below-threshold" | "already-flushed" | "read-only" | "disabled";

/** The answer of {@link FlushPolicy.shouldFlush}. */
export interface FlushDecision {
  flush: boolean;
  reason: FlushReason;
  /** Token count at which the flush fires: contextWindow − reserveTokensFloor − softThresholdTokens. */
  threshold: number;
  tokenEstimate: number;
}

/** A flush-turn `memory_write` result; `duplicate` when the same text was already written this cycle. */
export interface FlushWriteResult extends WriteToolResult {
  duplicate: boolean;
}

/** The pre-compaction memory flush of one workspace (see {@link createFlushPolicy}). */
export interface FlushPolicy {
  /** contextWindow − reserveTokensFloor − softThresholdTokens. */
  readonly threshold: number;
  /** System prompt of the flush turn. */
  readonly systemPrompt: string;
  /** User prompt of the flush turn, naming today's log (`memory/YYYY-MM-DD.md`). */
  userPrompt(): string;
  /**
   * Whether to run the flush turn now: true once `tokenEstimate` reaches {@link threshold}, at
   * most once per `compactionCycle` of `sessionId` (remembered on disk, across restarts), never
   * when the workspace is read-only or the flush is disabled.
   */
  shouldFlush(
    sessionId: string,
    tokenEstimate: number,
    compactionCycle: number,
  ): Promise<FlushDecision>;
  /**
   * Marks the cycle's flush as done (call it when the flush turn ran). Returns false when it was
   * already recorded (by this or another process).
   */
  recordFlush(sessionId: string, compactionCycle: number): Promise<boolean>;
  /** True for a `NO_REPLY` answer: swallow it, show the user nothing. */
  isNoReply(text: unknown): boolean;
  /**
   * The memory tools to offer during the flush turn. `memory_write` appends as always, and the
   * same text to the same target is written once per cycle: a repeat answers `duplicate: true`
   * with where the first landed.
   */
  tools(sessionId: string, compactionCycle: number): MemoryTools;
  /**
   * The session ended: it counts towards `maintenance.gates.minSessions`, and with
   * `consolidateOnSessionEnd` a session-end consolidation runs when the gates pass (never in a
   * read-only workspace). Resolves to that run, or null when none ran.
   */
  endSession(sessionId: string): Promise<MaintenanceRun | null>;
}

/**
 * The seeds' `memoryFlush`: when a session nears automatic compaction, run one silent turn that
 * reminds the model to store lasting notes before older context is summarised away.
 *
 * @example
 * ```ts
 * const flush = createFlushPolicy({ memory, contextWindow: 128_000 });
 * if ((await flush.shouldFlush(sessionId, tokens, cycle)).flush) {
 *   const reply = await model.run(flush.systemPrompt, flush.userPrompt(), flush.tools(sessionId, cycle));
 *   await flush.recordFlush(sessionId, cycle);
 *   if (!flush.isNoReply(reply)) show(reply);
 * }
 * ```
 *
 * @throws EngramError `INVALID_ARGUMENT` when a token figure is not a whole number or leaves no
 * room (threshold ≤ 0).
 */
export function createFlushPolicy(options: FlushPolicyOptions): FlushPolicy {
  const { memory } = options;
  const config = memory.config?.flush ?? {};
  const contextWindow = tokens("contextWindow", options.contextWindow, 1);
  const reserve = tokens(
    "reserveTokensFloor",
    options.reserveTokensFloor ?? config.reserveTokensFloor ?? FLUSH_DEFAULTS.reserveTokensFloor,
  );
  const soft = tokens(
    "softThresholdTokens",
    options.softThresholdTokens ?? config.softThresholdTokens ?? FLUSH_DEFAULTS.softThresholdTokens,
  );
  const threshold = contextWindow - reserve - soft;
  if (threshold <= 0) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `flush threshold is ${threshold}: contextWindow ${contextWindow} leaves no room for reserveTokensFloor ${reserve} + softThresholdTokens ${soft}`,
      {
        hint: "pass the model's real context window, or lower reserveTokensFloor / softThresholdTokens",
      },
    );
  }
  const enabled = options.enabled ?? config.enabled ?? true;
  const clock = options.clock ?? systemClock;
  const state = new SessionStateFile(memory.workspace, options.stateFile);
  const userTemplate = options.userPrompt ?? config.userPrompt ?? DEFAULT_FLUSH_USER_PROMPT;
  const tools = createMemoryTools(memory);
  /** Today's log named by its path is the same target as "daily". */
  const sameTarget = (target: string): string =>
    isDailyLogPath(target) === localDate(clock.now()) ? "daily" : target;

  const writable = async (): Promise<boolean> => {
    if (options.readOnly) return false;
    return access(memory.workspace, constants.W_OK).then(
      () => true,
      () => false,
    );
  };

  return {
    threshold,
    systemPrompt: options.systemPrompt ?? config.systemPrompt ?? DEFAULT_FLUSH_SYSTEM_PROMPT,
    userPrompt: () => fillDate(userTemplate, localDate(clock.now())),
    isNoReply,

    async shouldFlush(sessionId, tokenEstimate, compactionCycle) {
      checkSession(sessionId);
      const estimate = tokens("tokenEstimate", tokenEstimate);
      const cycle = tokens("compactionCycle", compactionCycle);
      const decide = (reason: FlushReason): FlushDecision => ({
        flush: reason === "due",
        reason,
        threshold,
        tokenEstimate: estimate,
      });
      if (!enabled) return decide("disabled");
      if (estimate < threshold) return decide("below-threshold");
      if (!(await writable())) return decide("read-only");
      const { flushed } = await state.get(sessionId);
      return decide(flushed?.cycle === cycle ? "already-flushed" : "due");
    },

    async recordFlush(sessionId, compactionCycle) {
      checkSession(sessionId);
      const cycle = tokens("compactionCycle", compactionCycle);
      return state.update(sessionId, (s) => {
        if (s.flushed?.cycle === cycle) return false;
        s.flushed = { cycle, at: clock.now().toISOString() };
        return true;
      });
    },

    async endSession(sessionId) {
      checkSession(sessionId);
      if (!(await writable())) return null;
      await noteSessionEnd(memory.workspace, sessionId, clock.now());
      const run =
        options.consolidateOnSessionEnd ?? memory.config?.maintenance?.onSessionEnd ?? false;
      if (!run || typeof memory.runMaintenance !== "function") return null;
      return memory.runMaintenance({ trigger: "session-end" });
    },

    tools(sessionId, compactionCycle) {
      checkSession(sessionId);
      const cycle = tokens("compactionCycle", compactionCycle);
      const write = async (raw: unknown): Promise<FlushWriteResult> => {
        const args = parseToolArgs("memory_write", raw);
        const hash = sha256Hex(`${sameTarget(args.target)}\0${normalise(args.text)}`);
        return state.update(sessionId, async (s) => {
          const writes = s.writes?.cycle === cycle ? s.writes : { cycle, entries: [] };
          const seen = writes.entries.find((e) => e.hash === hash);
          if (seen) {
            const { hash: _, ...where } = seen;
            return { ...where, created: false, target: targetKind(args.target), duplicate: true };
          }
          const result = await tools.call("memory_write", args);
          const { path, startLine, endLine } = result;
          s.writes = { cycle, entries: [...writes.entries, { hash, path, startLine, endLine }] };
          return { ...result, duplicate: false };
        });
      };
      return {
        definitions: tools.definitions,
        call: (name: string, args: unknown) =>
          name === "memory_write" ? write(args) : tools.call(name, args),
      } as MemoryTools;
    },
  };
}

/** Texts that differ only in surrounding or repeated whitespace count as the same note. */
function normalise(text: string): string {
  return text.normalize("NFC").trim().replace(/\s+/g, " ");
}

function targetKind(target: string): WriteToolResult["target"] {
  return target === "daily" || target === "long-term" ? target : "file";
}

function tokens(name: string, value: unknown, min = 0): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${name} must be a whole number of at least ${min}, got ${String(value)}`,
      { hint: `pass ${name} as a token count such as ${min > 0 ? 128_000 : 0}` },
    );
  }
  return value;
}

function checkSession(sessionId: unknown): void {
  if (typeof sessionId !== "string" || sessionId.trim() === "" || sessionId.length > 256) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `sessionId must be non-empty text of at most 256 characters, got ${JSON.stringify(sessionId)}`,
      { hint: 'pass the agent session\'s id, e.g. "main" or a UUID' },
    );
  }
}
