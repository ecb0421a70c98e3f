import { isEngramError } from "../errors.js";

/** A failed tool call as JSON an agent (or an MCP client) can read. */
export interface ToolErrorResult {
  error: { code: string; message: string; hint?: string };
}

/**
 * Turns a thrown error into a JSON tool result: an {@link EngramError} keeps its code and hint;
 * anything else becomes `UNEXPECTED` with its message. Feed it back to the model as the tool's
 * answer so it can correct the call instead of the loop crashing.
 */
export function toolErrorResult(error: unknown): ToolErrorResult {
  if (isEngramError(error)) {
    return {
      error: {
        code: error.code,
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
      },
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { error: { code: "UNEXPECTED", message } };
}

/**
 * A failed tool call as one line for a model to read: `CODE: message (hint)` (the text of an MCP
 * tool error).
 */
export function toolErrorText(error: unknown): string {
  const { error: e } = toolErrorResult(error);
  return `${e.code}: ${e.message}${e.hint ? ` (${e.hint})` : ""}`;
}
