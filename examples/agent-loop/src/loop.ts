import {
  type Clock,
  createFlushPolicy,
  createMemory,
  createMemoryTools,
  estimateTokens,
  type MemoryTools,
  openAiTools,
  toolErrorResult,
} from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import { type ChatModel, type Message, scriptedModel } from "./model.js";

/** What happened, in order: the example prints these; the test checks them. */
export type LoopEvent =
  | { type: "user"; text: string }
  | { type: "tool"; name: string; args: string; result: unknown; silent: boolean }
  | { type: "assistant"; text: string }
  | { type: "flush"; cycle: number; tokens: number; threshold: number; swallowed: boolean }
  | { type: "compaction"; cycle: number; tokensBefore: number; tokensAfter: number };

/** Options of {@link runAgentLoop}. */
export interface AgentLoopOptions {
  /** The workspace folder (must exist). */
  workspace: string;
  /** The user's messages, in order. */
  script: readonly string[];
  /** Default: {@link scriptedModel} (no API key). */
  model?: ChatModel;
  sessionId?: string;
  /** Tiny figures so a short script reaches the flush and the compaction. */
  contextWindow?: number;
  reserveTokensFloor?: number;
  softThresholdTokens?: number;
  clock?: Clock;
  onEvent?: (event: LoopEvent) => void;
}

const SYSTEM_PROMPT =
  "You are a helpful assistant with a Markdown memory. Search it (memory_search) before " +
  "answering about earlier work or preferences; store what the user asks you to remember " +
  "(memory_write: daily notes, or long-term for lasting preferences).";

/** Most model steps per turn (tool calls, then the answer). */
const MAX_STEPS = 4;

/**
 * A minimal agent loop on engram: each user message is answered by the model with the memory
 * tools; before every turn the session's token estimate is checked against the flush policy
 * (a silent turn that stores notes and answers `NO_REPLY`, swallowed), and past
 * contextWindow − reserveTokensFloor the history is compacted and a new cycle starts.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<LoopEvent[]> {
  const events: LoopEvent[] = [];
  const emit = (event: LoopEvent) => {
    events.push(event);
    options.onEvent?.(event);
  };
  const sessionId = options.sessionId ?? "example";
  const contextWindow = options.contextWindow ?? 1_000;
  const reserve = options.reserveTokensFloor ?? 500;
  const model = options.model ?? scriptedModel();
  const memory = await createMemory({
    workspace: options.workspace,
    store: sqliteStore(),
    embedder: null, // keyword search: no API key needed
    ...(options.clock ? { clock: options.clock } : {}),
  });
  try {
    const tools = createMemoryTools(memory);
    const flush = createFlushPolicy({
      memory,
      contextWindow,
      reserveTokensFloor: reserve,
      softThresholdTokens: options.softThresholdTokens ?? 200,
      ...(options.clock ? { clock: options.clock } : {}),
    });
    let messages: Message[] = [{ role: "system", content: SYSTEM_PROMPT }];
    let cycle = 0;

    for (const text of options.script) {
      const tokens = countTokens(messages);
      const decision = await flush.shouldFlush(sessionId, tokens, cycle);
      if (decision.flush) {
        // The silent turn sees the history, but nothing of it is added to the history.
        const reply = await runTurn(
          model,
          [
            ...messages,
            { role: "system", content: flush.systemPrompt },
            { role: "user", content: flush.userPrompt() },
          ],
          flush.tools(sessionId, cycle),
          (e) => emit({ ...e, silent: true }),
        );
        await flush.recordFlush(sessionId, cycle);
        const swallowed = flush.isNoReply(reply.text);
        emit({ type: "flush", cycle, tokens, threshold: decision.threshold, swallowed });
        if (!swallowed) emit({ type: "assistant", text: reply.text });
      }
      if (tokens >= contextWindow - reserve) {
        messages = compact(messages);
        emit({
          type: "compaction",
          cycle,
          tokensBefore: tokens,
          tokensAfter: countTokens(messages),
        });
        cycle++;
      }
      emit({ type: "user", text });
      messages.push({ role: "user", content: text });
      const reply = await runTurn(model, messages, tools, (e) => emit({ ...e, silent: false }));
      messages = reply.messages;
      emit({ type: "assistant", text: reply.text });
    }
    return events;
  } finally {
    await memory.close();
  }
}

/** Model ↔ tools until the model answers with text; returns the text and the grown history. */
async function runTurn(
  model: ChatModel,
  history: Message[],
  tools: MemoryTools,
  onTool: (event: { type: "tool"; name: string; args: string; result: unknown }) => void,
): Promise<{ text: string; messages: Message[] }> {
  const messages = [...history];
  const definitions = openAiTools(tools.definitions);
  for (let step = 0; step < MAX_STEPS; step++) {
    const turn = await model.complete(messages, definitions);
    if (turn.toolCalls.length === 0) {
      messages.push({ role: "assistant", content: turn.content });
      return { text: turn.content, messages };
    }
    messages.push({ role: "assistant", content: turn.content, toolCalls: turn.toolCalls });
    for (const call of turn.toolCalls) {
      // A failed call goes back to the model as data (it can fix its arguments), never a crash.
      const result = await tools.call(call.name, call.arguments).catch(toolErrorResult);
      onTool({ type: "tool", name: call.name, args: call.arguments, result });
      messages.push({
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: JSON.stringify(result),
      });
    }
  }
  return { text: "(stopped: too many tool calls)", messages };
}

/** The session's token estimate: every message's text (CJK ≈ 1 token/char, else ≈ 4 chars/token). */
function countTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + estimateTokens(m.content) + 4, 0);
}

/** Compaction: keep the system prompt and the last exchange, summarise the rest as one line. */
function compact(messages: readonly Message[]): Message[] {
  const [system, ...rest] = messages;
  const users = rest.filter((m) => m.role === "user").length;
  const summary: Message = {
    role: "system",
    content: `Earlier conversation (${users} user messages) was compacted; its notes are in memory.`,
  };
  return system ? [system, summary] : [summary];
}
