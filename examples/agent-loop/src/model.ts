import type { OpenAiTool } from "@engram/core";

/** A tool call the model asks for (OpenAI-style: arguments as JSON text). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One chat message. */
export type Message =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[] }
  | { role: "tool"; toolCallId: string; name: string; content: string };

/** What a model answers: text, or tool calls to run first. */
export interface ModelTurn {
  content: string;
  toolCalls: ToolCall[];
}

/** The one thing the loop needs of an LLM. Swap in a real chat-completions client here. */
export interface ChatModel {
  complete(messages: readonly Message[], tools: readonly OpenAiTool[]): Promise<ModelTurn>;
}

/**
 * A scripted stand-in for an LLM, so the example runs without an API key. It follows the rules a
 * real model is prompted with: "remember …" → `memory_write` (preferences to `long-term`), a
 * question → `memory_search` then an answer citing the file and lines; in the silent flush turn it
 * stores what the user said this session and answers `NO_REPLY`.
 */
export function scriptedModel(): ChatModel {
  let calls = 0;
  const call = (name: string, args: object): ModelTurn => ({
    content: "",
    toolCalls: [{ id: `call_${++calls}`, name, arguments: JSON.stringify(args) }],
  });

  return {
    async complete(messages) {
      const last = messages.at(-1);
      if (!last) return { content: "", toolCalls: [] };
      const flushing = messages.some((m) => m.role === "system" && /compaction/i.test(m.content));

      if (last.role === "tool") {
        const result = JSON.parse(last.content) as Record<string, unknown>;
        if (flushing || "error" in result) return { content: "NO_REPLY", toolCalls: [] };
        if (last.name === "memory_write") {
          return { content: `Noted (${String(result.path)}).`, toolCalls: [] };
        }
        const hits = (result.results ?? []) as {
          path: string;
          startLine: number;
          endLine: number;
          snippet: string;
        }[];
        const top = hits[0];
        if (!top) return { content: "I have nothing in memory about that.", toolCalls: [] };
        const query = String(result.query ?? "");
        const line = bestLine(top.snippet, query);
        return {
          content: `From memory (${top.path}#L${top.startLine}-L${top.endLine}): ${line}`,
          toolCalls: [],
        };
      }

      if (last.role !== "user") return { content: "", toolCalls: [] };
      if (flushing) {
        const notes = messages
          .filter((m) => m.role === "user" && !/NO_REPLY/.test(m.content))
          .map((m) => `- ${m.content.replace(REMEMBER, "$1")}`);
        return notes.length
          ? call("memory_write", { text: `Session notes before compaction:\n${notes.join("\n")}` })
          : { content: "NO_REPLY", toolCalls: [] };
      }
      const remember = REMEMBER.exec(last.content.trim());
      if (remember?.[1]) {
        const lasting = /\b(?:always|prefer|never)\b|偏好|总是/iu.test(remember[1]);
        return call("memory_write", { text: remember[1], target: lasting ? "long-term" : "daily" });
      }
      return call("memory_search", { query: last.content, maxResults: 3 });
    },
  };
}

/** "Remember …" / "记住…": the user asks for something to be stored. */
const REMEMBER = /^(?:remember(?: that)?|记住)[:：,，]?\s*(.+)$/isu;

/** The snippet line sharing the most words (or CJK characters) with the query. */
function bestLine(snippet: string, query: string): string {
  const terms = query.toLowerCase().match(/\p{Script=Han}|[\p{L}\p{N}]{3,}/gu) ?? [];
  const lines = snippet.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
  let best = lines[0] ?? snippet;
  let bestScore = -1;
  for (const line of lines) {
    const lower = line.toLowerCase();
    const score = terms.filter((t) => lower.includes(t)).length;
    if (score > bestScore) [best, bestScore] = [line, score];
  }
  return best.trim();
}
