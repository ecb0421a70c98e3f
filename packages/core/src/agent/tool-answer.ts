import type { MemoryTools } from "./tools.js";
import { toolErrorResult } from "./tools-errors.js";

/** A tool call's answer, ready for any provider's tool-result message. */
export interface ToolAnswer {
  /** True when the call failed (Anthropic's `is_error`, MCP's `isError`). */
  isError: boolean;
  /** The result, or `{ error: { code, message, hint } }`, as JSON text for the model. */
  text: string;
  /** The result object (undefined when the call failed). */
  result?: unknown;
}

/**
 * Runs a tool call and never throws: the answer to hand back to the model in a hand-written loop
 * (an OpenAI `role: "tool"` message's `content`, an Anthropic `tool_result` block's `content` and
 * `is_error`). A failure becomes `{ error: { code, message, hint } }` so the model can correct
 * its call.
 *
 * @example
 * ```ts
 * for (const call of message.tool_calls ?? []) {
 *   const { text } = await answerToolCall(tools, call.function.name, call.function.arguments);
 *   messages.push({ role: "tool", tool_call_id: call.id, content: text });
 * }
 * ```
 */
export async function answerToolCall(
  tools: MemoryTools,
  name: string,
  args: unknown,
): Promise<ToolAnswer> {
  try {
    const result = await tools.call(name, args);
    return { isError: false, text: JSON.stringify(result), result };
  } catch (error) {
    return { isError: true, text: JSON.stringify(toolErrorResult(error)) };
  }
}
