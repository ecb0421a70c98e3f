import { type Clock, flushPrompts, localDate, type Memory, recallPrompt } from "@engram/core";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/** What the prompts need: the workspace's flush wording and its clock (for today's date). */
export interface MemoryPromptOptions {
  flush: Memory["config"]["flush"] | undefined;
  clock: Clock;
  /** Leave out the flush prompt (it asks the model to write, which a read-only server refuses). */
  readOnly: boolean;
}

/**
 * Serves two prompts: `recall` ("recall what you know about X": search, read, answer with
 * citations) and, unless read-only, `flush` (the pre-compaction memory flush: write lasting notes
 * before the context is summarised away). MCP prompts carry no system role, so the flush turn's
 * system and user prompts arrive as one user message.
 */
export function registerMemoryPrompts(server: McpServer, options: MemoryPromptOptions): void {
  server.registerPrompt(
    "recall",
    {
      title: "Recall from memory",
      description: "Search memory for a topic and answer from what it holds, with citations.",
      argsSchema: {
        topic: z.string().describe("What to recall, e.g. 'deploy plan' or '用户偏好'"),
      },
    },
    ({ topic }) => ({
      description: `Recall what memory holds about ${topic}`,
      messages: [{ role: "user", content: { type: "text", text: recallPrompt(topic) } }],
    }),
  );
  if (options.readOnly) return;
  server.registerPrompt(
    "flush",
    {
      title: "Flush to memory",
      description:
        "Before the conversation is compacted: write lasting notes to today's log or MEMORY.md.",
    },
    () => {
      const { system, user } = flushPrompts(options.flush, localDate(options.clock.now()));
      return {
        description: "Store durable memories before compaction",
        messages: [{ role: "user", content: { type: "text", text: `${system}\n\n${user}` } }],
      };
    },
  );
}
