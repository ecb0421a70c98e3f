import { LanguageModelRun } from "../model/chain.js";
import type { LanguageModel, TokenUsage } from "../model/language-model.js";
import type { Analyzer } from "../text/analyzer.js";
import { estimateTokens } from "../text/tokens.js";
import { type LineRef, tryParseRef } from "./citations.js";
import type { CuratedFile } from "./curated.js";
import {
  CONSOLIDATION_SCHEMA,
  CONSOLIDATION_SYSTEM_PROMPT,
  consolidationPrompt,
  type RawOperation,
} from "./prompt.js";
import type { SourceFile } from "./sources.js";
import type { Operation, OperationKind, Refusal, TokenSpend } from "./types.js";

/** What the model proposed over every batch it was asked about. */
export interface ModelProposal {
  ops: Operation[];
  /** Operations too malformed to check (unknown kind, unreadable citations). */
  invalid: Refusal[];
  /** True for a line the model was shown. */
  shown: (ref: LineRef) => boolean;
  /** Per source key: the last line the model read (lines after it stay new). */
  readTo: Map<string, number>;
  /** Source keys with lines the model was not sent (budget, failure): read again next pass. */
  pending: Set<string>;
  tokens: TokenSpend;
  /** Set when the model failed: the pass keeps what earlier calls proposed. */
  error?: string;
}

/** Settings of {@link proposeWithModel}. */
export interface ProposeSettings {
  today: string;
  defaultFile: string;
  /** Send private blocks and sensitive files (the workspace opted in). */
  includePrivate: boolean;
  /** The context window when the model does not say. */
  contextTokens: number;
  maxOutputTokens: number;
  /** Most tokens the whole pass may spend. */
  budget?: number;
  analyzer: Analyzer;
  signal?: AbortSignal;
}

const KINDS = new Set<OperationKind>(["ADD", "UPDATE", "SUPERSEDE", "MERGE", "SUMMARY"]);
/** Tokens kept free in each prompt for the estimate's error. */
const MARGIN = 0.1;

interface Line {
  key: string;
  path: string;
  n: number;
  shown: string;
  tokens: number;
  terms?: Set<string>;
}

/**
 * Ask the model for operations, in as many calls as the new notes need: each prompt holds long-term
 * memory (or, when that alone would fill half the context, the entries sharing most words with the
 * notes of the call) and as many new lines as fit in the model's context minus its answer. Calls
 * stop when the token budget cannot pay for the next one; lines not sent stay new for the next
 * pass. Private lines are never shown unless the workspace opted in.
 */
export async function proposeWithModel(
  model: LanguageModel,
  sources: readonly SourceFile[],
  curated: readonly CuratedFile[],
  settings: ProposeSettings,
): Promise<ModelProposal> {
  const tokens: TokenSpend = {
    input: 0,
    output: 0,
    calls: 0,
    exhausted: false,
    ...(settings.budget !== undefined ? { budget: settings.budget } : {}),
  };
  const shownSet = new Map<string, Set<number>>();
  const markShown = (path: string, n: number) => {
    const set = shownSet.get(path) ?? new Set<number>();
    set.add(n);
    shownSet.set(path, set);
  };
  const proposal: ModelProposal = {
    ops: [],
    invalid: [],
    shown: (ref) => {
      const set = shownSet.get(ref.path);
      if (!set) return false;
      for (let n = ref.startLine; n <= ref.endLine; n++) {
        if (!set.has(n)) return false;
      }
      return true;
    },
    readTo: new Map(),
    pending: new Set(),
    tokens,
  };
  const memory = curatedLines(curated, settings.includePrivate);
  const notes = noteLines(sources, settings.includePrivate);
  if (notes.length === 0) return proposal;
  const context = model.contextTokens ?? settings.contextTokens;
  const system = estimateTokens(CONSOLIDATION_SYSTEM_PROMPT) + 100;
  const room = Math.floor((context - settings.maxOutputTokens - system) * (1 - MARGIN));
  if (room < 200) {
    proposal.error = `the model's context (${context} tokens) leaves no room for notes after a ${settings.maxOutputTokens}-token answer`;
    return proposal;
  }
  const memoryTokens = memory.reduce((s, l) => s + l.tokens, 0);
  const memoryRoom = Math.floor(room / 2);
  let at = 0;
  while (at < notes.length) {
    // Notes for this call, leaving room for long-term memory.
    const cap = room - Math.min(memoryTokens, memoryRoom);
    const batch: Line[] = [];
    let used = 0;
    let next = at;
    while (next < notes.length) {
      const line = notes[next] as Line;
      if (batch.length && used + line.tokens > cap) break;
      batch.push(line);
      used += line.tokens;
      next++;
    }
    const shownMemory =
      memoryTokens <= memoryRoom ? memory : relevant(memory, batch, memoryRoom, settings.analyzer);
    const prompt = consolidationPrompt({
      today: settings.today,
      defaultFile: settings.defaultFile,
      curated: shownMemory.map((l) => l.shown),
      notes: batch.map((l) => l.shown),
    });
    const estimate = estimateTokens(CONSOLIDATION_SYSTEM_PROMPT) + estimateTokens(prompt);
    if (
      settings.budget !== undefined &&
      tokens.input + tokens.output + estimate + settings.maxOutputTokens > settings.budget
    ) {
      tokens.exhausted = true;
      break;
    }
    let answer: {
      value?: unknown;
      text: string;
      usage?: { inputTokens: number; outputTokens: number };
    };
    const meter = model instanceof LanguageModelRun ? model.usage : undefined;
    const before = meter ? { ...meter } : undefined;
    try {
      answer = await model.generate({
        system: CONSOLIDATION_SYSTEM_PROMPT,
        messages: [{ role: "user", content: prompt }],
        schema: CONSOLIDATION_SCHEMA,
        schemaName: "consolidation",
        maxTokens: settings.maxOutputTokens,
        temperature: 0,
        ...(settings.signal ? { signal: settings.signal } : {}),
      });
    } catch (error) {
      // An answer that was cut off or unreadable still cost what the model read and wrote.
      const spent =
        meter && before ? since(before, meter) : (error as { usage?: TokenUsage }).usage;
      if (spent && spent.inputTokens + spent.outputTokens > 0) {
        tokens.calls++;
        tokens.input += spent.inputTokens;
        tokens.output += spent.outputTokens;
      }
      proposal.error = (error as Error).message;
      break;
    }
    tokens.calls++;
    // Core's run meters every attempt (retried failures included); a bare model, its answer.
    const spent = meter && before ? since(before, meter) : undefined;
    tokens.input += spent?.inputTokens || answer.usage?.inputTokens || estimate;
    tokens.output +=
      spent?.outputTokens || answer.usage?.outputTokens || estimateTokens(answer.text);
    for (const l of [...shownMemory, ...batch]) markShown(l.path, l.n);
    for (const l of batch)
      proposal.readTo.set(l.key, Math.max(proposal.readTo.get(l.key) ?? 0, l.n));
    // Core's model chain parses and checks structured answers; a bare driver may leave it to us.
    readOperations(answer.value ?? parseAnswer(answer.text), proposal);
    at = next;
  }
  for (const l of notes.slice(at)) proposal.pending.add(l.key);
  return proposal;
}

/** Non-blank lines of long-term memory, cited (front matter and, unless opted in, private lines left out). */
function curatedLines(curated: readonly CuratedFile[], includePrivate: boolean): Line[] {
  const out: Line[] = [];
  for (const f of curated) {
    if (f.sensitive && !includePrivate) continue;
    const hidden = new Set<number>();
    if (!includePrivate) {
      for (const r of f.privateRanges) for (let n = r.startLine; n <= r.endLine; n++) hidden.add(n);
    }
    let start = 0;
    if (f.lines[0] === "---") {
      const end = f.lines.indexOf("---", 1);
      if (end > 0) start = end + 1;
    }
    for (let i = start; i < f.lines.length; i++) {
      const text = f.lines[i] as string;
      if (!text.trim() || hidden.has(i + 1)) continue;
      const shown = `${f.path}:${i + 1}| ${text}`;
      out.push({ key: f.path, path: f.path, n: i + 1, shown, tokens: estimateTokens(shown) + 1 });
    }
  }
  return out;
}

/** New, non-blank lines of the sources, cited (private lines left out unless opted in). */
function noteLines(sources: readonly SourceFile[], includePrivate: boolean): Line[] {
  const out: Line[] = [];
  for (const s of sources) {
    for (let n = s.from; n <= s.lines.length; n++) {
      const text = s.lines[n - 1] as string;
      if (!text.trim() || (!includePrivate && s.privateLines.has(n))) continue;
      const shown = `${s.path}:${n}| ${text}`;
      out.push({ key: s.key, path: s.path, n, shown, tokens: estimateTokens(shown) + 1 });
    }
  }
  return out;
}

/** The long-term lines sharing most terms with `batch`, within `room` tokens, in file order. */
function relevant(
  memory: readonly Line[],
  batch: readonly Line[],
  room: number,
  analyzer: Analyzer,
): Line[] {
  const wanted = new Set(
    batch.flatMap((l) => analyzer.terms(l.shown.slice(l.shown.indexOf("| ") + 2))),
  );
  const scored = memory.map((l, i) => {
    l.terms ??= new Set(analyzer.terms(l.shown.slice(l.shown.indexOf("| ") + 2)));
    let shared = 0;
    for (const t of l.terms) if (wanted.has(t)) shared++;
    return { l, i, shared };
  });
  scored.sort((a, b) => b.shared - a.shared || a.i - b.i);
  const picked: typeof scored = [];
  let used = 0;
  for (const s of scored) {
    if (s.shared === 0 || used + s.l.tokens > room) continue;
    picked.push(s);
    used += s.l.tokens;
  }
  return picked.sort((a, b) => a.i - b.i).map((s) => s.l);
}

/** Turn the model's answer into operations (malformed ones become `invalid` refusals). */
function readOperations(value: unknown, proposal: ModelProposal): void {
  const list = (value as { operations?: unknown })?.operations;
  if (!Array.isArray(list)) {
    proposal.invalid.push({
      operation: blank(),
      code: "invalid",
      why: "the model's answer has no operations list",
    });
    return;
  }
  for (const raw of list as Partial<RawOperation>[]) {
    const kind = String(raw?.op ?? "").toUpperCase() as OperationKind;
    const op: Operation = {
      op: KINDS.has(kind) ? kind : "ADD",
      targets: [],
      text: typeof raw?.text === "string" ? raw.text.trim() : "",
      sources: [],
      reason: typeof raw?.reason === "string" ? raw.reason.trim() : "",
      origin: "model",
    };
    if (!KINDS.has(kind)) {
      proposal.invalid.push({
        operation: op,
        code: "invalid",
        why: `unknown operation "${String(raw?.op)}"`,
      });
      continue;
    }
    const bad: string[] = [];
    const refs = (items: unknown): LineRef[] =>
      (Array.isArray(items) ? items : []).flatMap((s) => {
        const r = typeof s === "string" ? tryParseRef(s) : null;
        if (!r) bad.push(String(s));
        return r ? [r] : [];
      });
    const target = typeof raw.target === "string" ? raw.target.trim() : "";
    if (kind === "ADD") {
      if (target) op.file = target.replace(/:\d+(?:-\d+)?$/, "");
      if (typeof raw.section === "string" && raw.section.trim()) op.section = raw.section.trim();
    } else if (kind !== "SUMMARY") {
      op.targets = refs(target ? [target] : []);
      if (kind === "MERGE") op.targets.push(...refs(raw.merge));
    }
    op.sources = refs(raw.sources);
    if (bad.length) {
      proposal.invalid.push({
        operation: op,
        code: "invalid",
        why: `citations are not path:start-end: ${bad.join(", ")}`,
        detail: bad,
      });
      continue;
    }
    proposal.ops.push(op);
  }
}

/** Tokens a run's meter counted since `before`. */
function since(before: TokenUsage, meter: TokenUsage): TokenUsage {
  return {
    inputTokens: meter.inputTokens - before.inputTokens,
    outputTokens: meter.outputTokens - before.outputTokens,
  };
}

function blank(): Operation {
  return { op: "ADD", targets: [], text: "", sources: [], reason: "", origin: "model" };
}

function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
