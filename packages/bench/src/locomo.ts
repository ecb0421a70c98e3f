import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  CONFIG_FILE,
  type ConsolidationResult,
  type Embedder,
  type EngramConfigInput,
  fixedClock,
  MEMORY_DIR,
  type Memory,
} from "@engram/core";
import { appendDailyLog } from "@engram/core/internal";
import { type BenchEmbeddingInfo, openBenchMemory } from "./bench-memory.js";
import { type LocomoConversation, readLocomo } from "./locomo-data.js";
import { type RecallCounts, scoreEvidence, turnIdsIn, turnLine } from "./locomo-recall.js";
import { type BenchMode, benchModes } from "./modes.js";
import { median, percentile, timed } from "./stats.js";

/** Options of {@link benchLocomo}. */
export interface LocomoBenchOptions {
  /** A LoCoMo JSON file. */
  file: string;
  /** Result counts to measure recall at (default 1, 6, 10). */
  ks?: readonly number[];
  /** Config written to each workspace's `engram.config.json` (ablations: mmr, chunking, …). */
  config?: EngramConfigInput;
  /** Build the workspaces under this folder and keep them (one sub-folder per conversation). */
  workspace?: string;
  /**
   * Consolidate each conversation before measuring: every question is asked once (hybrid, 6
   * results, as an agent would, which fills the recall log), then a consolidation pass without a
   * model is applied (duplicates merged, recalled turns promoted to MEMORY.md), then recall is
   * measured as usual.
   */
  consolidate?: boolean;
  /** Embed with this instead of the configured providers (`--embedder`). */
  embedder?: Embedder;
  log?: (line: string) => void;
}

/** Recall of one mode at one k. Shares are 0–1; context in characters of snippet per question. */
export interface LocomoRecallAtK {
  k: number;
  /** Share of questions with at least one evidence turn among the lines the snippets show. */
  any: number;
  /** Share of questions with every evidence turn shown. */
  all: number;
  byCategory: Record<"1" | "2" | "3" | "4", RecallCounts & { anyShare: number; allShare: number }>;
  context: { meanChars: number; maxChars: number };
}

/** One mode's results. */
export interface LocomoModeResult {
  label: string;
  /** Set when the mode could not run or degraded to keyword search. */
  degraded?: string;
  recall: LocomoRecallAtK[];
  search: { p50Ms: number; p95Ms: number };
}

/** What {@link benchLocomo} measured. */
export interface LocomoBenchResult {
  dataset: string;
  conversations: number;
  sessions: number;
  turns: number;
  /** Questions of categories 1–4, and how many per category. */
  questions: number;
  byCategory: Record<"1" | "2" | "3" | "4", number>;
  /** Evidence ids that name no turn (their questions can never score them). */
  unresolvedEvidence: string[];
  chunks: number;
  syncMs: number;
  config: EngramConfigInput | null;
  modes: LocomoModeResult[];
  /** With `consolidate`: what the passes did, summed over the conversations. */
  consolidation?: {
    passes: number;
    operations: number;
    added: number;
    merged: number;
    refused: number;
    ms: number;
  };
  /** The `--embedder` the run used, when one was given. */
  embedding?: BenchEmbeddingInfo;
}

const CATEGORIES = ["1", "2", "3", "4"] as const;

/**
 * Index each LoCoMo conversation as its own workspace — every session appended to the daily log
 * of its date (`memory/YYYY-MM-DD.md`), one turn per line marked with its dialog id — and ask
 * every category 1–4 question through `Memory.search` (the path the CLI and the agent tools use)
 * with the default settings but `maxResults = k`. A question is found at k when a returned
 * snippet *shows* an evidence turn (its `startLine..endLine` holds the turn's line), not merely
 * when the chunk behind it does.
 */
export async function benchLocomo(options: LocomoBenchOptions): Promise<LocomoBenchResult> {
  const log = options.log ?? (() => {});
  const ks = [...new Set(options.ks ?? [1, 6, 10])].sort((a, b) => a - b);
  const conversations = await readLocomo(options.file);
  const root = options.workspace ?? (await mkdtemp(join(tmpdir(), "engram-locomo-")));
  const tallies = new Map<string, ModeTally>();
  const tallyOf = (label: string): ModeTally => {
    let tally = tallies.get(label);
    if (!tally) {
      tally = { counts: ks.map(() => emptyCounts()), chars: ks.map(() => []), times: [] };
      tallies.set(label, tally);
    }
    return tally;
  };
  /** Why a mode degraded to keyword search or failed. */
  const degraded: Record<string, string> = {};
  const failed = new Set<string>();
  let modes: BenchMode[] = [];
  const unresolvedEvidence: string[] = [];
  let chunks = 0;
  let syncMs = 0;
  const consolidation = { passes: 0, operations: 0, added: 0, merged: 0, refused: 0, ms: 0 };
  try {
    const folders = new Set<string>();
    for (const [index, conversation] of conversations.entries()) {
      let folder = safeName(conversation.id);
      if (folders.has(folder)) folder = `${folder}-${index}`;
      folders.add(folder);
      const ws = join(root, folder);
      await writeConversation(ws, conversation, options.config);
      const known = new Set(conversation.sessions.flatMap((s) => s.turns.map((t) => t.id)));
      for (const q of conversation.questions) {
        unresolvedEvidence.push(...q.evidence.filter((id) => !known.has(id)));
      }
      const memory = await openBenchMemory(ws, options.embedder);
      try {
        let report: Awaited<ReturnType<Memory["sync"]>>;
        syncMs += await timed(async () => (report = await memory.sync()));
        chunks += report?.chunks ?? 0;
        modes = benchModes(memory);
        if (options.consolidate) {
          for (const question of conversation.questions) await memory.search(question.question);
          await memory.recall.flush();
          let pass: ConsolidationResult | undefined;
          const ms = await timed(async () => {
            pass = await memory.consolidate({ mode: "apply", model: null, skipUnsafe: true });
          });
          const ops = pass?.plan.operations ?? [];
          consolidation.passes++;
          consolidation.operations += ops.length;
          consolidation.added += ops.filter((o) => o.op === "ADD").length;
          consolidation.merged += ops.filter((o) => o.op === "MERGE").length;
          consolidation.refused += pass?.plan.refused.length ?? 0;
          consolidation.ms += ms;
        }
        const lines = new Map<string, string[]>();
        const linesOf = async (path: string) => {
          let cached = lines.get(path);
          if (!cached) {
            cached = (await readFile(join(ws, path), "utf8")).split("\n");
            lines.set(path, cached);
          }
          return cached;
        };
        for (const mode of modes) {
          if (failed.has(mode.label)) continue;
          const { counts, chars, times } = tallyOf(mode.label);
          for (const question of conversation.questions) {
            if (failed.has(mode.label)) break;
            for (const [i, k] of ks.entries()) {
              let response: Awaited<ReturnType<Memory["search"]>> | undefined;
              const ms = await timed(async () => {
                response = await memory
                  .search(question.question, {
                    mode: mode.mode,
                    maxResults: k,
                    ...(mode.fusion ? { fusion: mode.fusion } : {}),
                  })
                  .catch((error: Error) => {
                    degraded[mode.label] = `failed: ${error.message}`;
                    failed.add(mode.label);
                    return undefined;
                  });
              });
              if (!response) break;
              if (response.degraded) degraded[mode.label] = response.degradedReason ?? "degraded";
              if (k === 6 || i === 0) times.push(ms);
              const shown = new Set<string>();
              let used = 0;
              for (const r of response.results) {
                used += r.snippet.length;
                const file = await linesOf(r.path);
                for (const id of turnIdsIn(file.slice(r.startLine - 1, r.endLine))) shown.add(id);
              }
              const hit = scoreEvidence(question, shown);
              add(counts[i] ?? [], question.category, hit);
              chars[i]?.push(used);
            }
          }
        }
      } finally {
        await memory.close();
      }
      log(`${conversation.id}: ${conversation.questions.length} questions done`);
    }
  } finally {
    if (!options.workspace) await rm(root, { recursive: true, force: true });
  }

  const byCategory = { "1": 0, "2": 0, "3": 0, "4": 0 };
  for (const c of conversations) for (const q of c.questions) byCategory[`${q.category}`]++;
  return {
    dataset: basename(options.file).replace(/\.json$/i, ""),
    conversations: conversations.length,
    sessions: conversations.reduce((n, c) => n + c.sessions.length, 0),
    turns: conversations.reduce(
      (n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0),
      0,
    ),
    questions: conversations.reduce((n, c) => n + c.questions.length, 0),
    byCategory,
    unresolvedEvidence,
    chunks,
    syncMs,
    config: options.config ?? null,
    ...(options.consolidate ? { consolidation } : {}),
    modes: modes.map((mode) => ({
      label: mode.label,
      ...(degraded[mode.label] ? { degraded: degraded[mode.label] } : {}),
      recall: ks.map((k, i) =>
        summarise(k, tallyOf(mode.label).counts[i], tallyOf(mode.label).chars[i]),
      ),
      search: {
        p50Ms: median(tallyOf(mode.label).times),
        p95Ms: percentile(tallyOf(mode.label).times, 95),
      },
    })),
  };
}

/**
 * Write one conversation as a user's agent would have: a workspace whose daily logs hold the
 * sessions, each appended as one entry (`## HH:MM`, then one line per turn) to the log of its day.
 */
async function writeConversation(
  ws: string,
  conversation: LocomoConversation,
  config: EngramConfigInput | undefined,
): Promise<void> {
  await mkdir(join(ws, MEMORY_DIR), { recursive: true });
  if (config) await writeFile(join(ws, CONFIG_FILE), JSON.stringify(config, null, 2));
  for (const session of conversation.sessions) {
    if (!session.turns.length) continue;
    await appendDailyLog(ws, session.turns.map(turnLine).join("\n"), {
      clock: fixedClock(session.date),
    });
  }
}

/** What one mode has measured so far: per k, recall counts and context characters; latencies. */
interface ModeTally {
  counts: RecallCounts[][];
  chars: number[][];
  times: number[];
}

/** Per-category counts: index 0 is every question, 1–4 the categories. */
function emptyCounts(): RecallCounts[] {
  return Array.from({ length: 5 }, () => ({ questions: 0, any: 0, all: 0 }));
}

function add(c: RecallCounts[], category: number, hit: { any: boolean; all: boolean }): void {
  for (const group of [c[0], c[category]]) {
    if (!group) continue;
    group.questions++;
    if (hit.any) group.any++;
    if (hit.all) group.all++;
  }
}

function summarise(
  k: number,
  c: RecallCounts[] | undefined,
  chars: number[] | undefined,
): LocomoRecallAtK {
  const counts = c ?? emptyCounts();
  const share = (n: number, of: number) => (of ? n / of : 0);
  const total = counts[0] as RecallCounts;
  const byCategory = Object.fromEntries(
    CATEGORIES.map((cat) => {
      const g = counts[Number(cat)] as RecallCounts;
      return [
        cat,
        { ...g, anyShare: share(g.any, g.questions), allShare: share(g.all, g.questions) },
      ];
    }),
  ) as LocomoRecallAtK["byCategory"];
  const used = chars ?? [];
  return {
    k,
    any: share(total.any, total.questions),
    all: share(total.all, total.questions),
    byCategory,
    context: {
      meanChars: used.length ? used.reduce((a, b) => a + b, 0) / used.length : 0,
      maxChars: used.length ? Math.max(...used) : 0,
    },
  };
}

/** A folder name for a conversation id. */
function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_") || "conversation";
}
