import {
  answerToolCall,
  createMemoryTools,
  type MemoryTools,
  type MemoryToolsHost,
  openAiTools,
} from "@engram/core";
import type OpenAI from "openai";
import type { RunnableToolFunctionWithoutParse } from "openai/lib/RunnableFunction";

/**
 * engram's tools for the OpenAI SDK's own loop, `client.chat.completions.runTools()`: core's
 * `openAiTools()` definitions, each with a `function` that runs the call and answers JSON text
 * (a failed call answers `{ error: { code, message, hint } }`, so the model can correct it).
 */
export function openAiRunnerTools(tools: MemoryTools): RunnableToolFunctionWithoutParse[] {
  return openAiTools(tools.definitions).map(({ function: fn }) => ({
    type: "function",
    function: {
      ...fn,
      parameters: { ...fn.parameters, required: [...fn.parameters.required] },
      function: async (args: string) => (await answerToolCall(tools, fn.name, args)).text,
    },
  }));
}

/** Asks `question` with the memory tools until the model answers; returns its answer. */
export async function askWithOpenAi(
  client: OpenAI,
  memory: MemoryToolsHost,
  question: string,
  model = "gpt-4.1-mini",
): Promise<string | null> {
  const runner = client.chat.completions.runTools({
    model,
    messages: [
      { role: "system", content: "Use memory_search before answering; cite path:lines." },
      { role: "user", content: question },
    ],
    tools: openAiRunnerTools(createMemoryTools(memory)),
  });
  return runner.finalContent();
}
