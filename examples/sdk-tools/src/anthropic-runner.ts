import type Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import {
  answerToolCall,
  anthropicTools,
  createMemoryTools,
  type MemoryTools,
  type MemoryToolsHost,
} from "@engram/core";

/**
 * engram's tools for the Anthropic SDK's own loop, `client.beta.messages.toolRunner()`: core's
 * `anthropicTools()` definitions through the SDK's `betaTool()`, each running the call. A failed
 * call throws the SDK's `ToolError`, which the runner sends back as a `tool_result` with
 * `is_error: true` and the `{ error: { code, message, hint } }` text.
 */
export function anthropicRunnerTools(tools: MemoryTools) {
  return anthropicTools(tools.definitions).map((def) =>
    betaTool({
      name: def.name,
      description: def.description,
      inputSchema: def.input_schema as { type: "object" },
      run: async (args) => {
        const answer = await answerToolCall(tools, def.name, args);
        // ToolError: the runner sends its content as it is, flagged `is_error: true`.
        if (answer.isError) throw new ToolError(answer.text);
        return answer.text;
      },
    }),
  );
}

/** Asks `question` with the memory tools until the model answers; returns its text. */
export async function askWithAnthropic(
  client: Anthropic,
  memory: MemoryToolsHost,
  question: string,
  model = "claude-sonnet-4-5",
): Promise<string> {
  const message = await client.beta.messages.toolRunner({
    model,
    max_tokens: 1024,
    system: "Use memory_search before answering; cite path:lines.",
    messages: [{ role: "user", content: question }],
    tools: anthropicRunnerTools(createMemoryTools(memory)),
  });
  return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}
