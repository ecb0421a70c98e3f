/** The answer by which a model says a silent turn has nothing to show the user. */
export const NO_REPLY = "NO_REPLY";

/** System prompt of the flush turn (the seeds' `memoryFlush.systemPrompt`). */
export const DEFAULT_FLUSH_SYSTEM_PROMPT =
  "Session nearing compaction. Store durable memories now: older messages are about to be " +
  "summarised away. This turn is silent; the user does not see it.";

/**
 * User prompt of the flush turn; `YYYY-MM-DD` is replaced by today's date (the seeds'
 * `memoryFlush.prompt`, naming the `memory_write` tool).
 */
export const DEFAULT_FLUSH_USER_PROMPT =
  'Write any lasting notes to memory/YYYY-MM-DD.md with memory_write (target "daily"; ' +
  'decisions and durable facts may go to target "long-term"). Entries are appended; do not ' +
  `repeat what is already stored. Reply with ${NO_REPLY} if nothing to store, and ${NO_REPLY} ` +
  "once you are done.";

/** `template` with every `YYYY-MM-DD` replaced by `date`. */
export function fillDate(template: string, date: string): string {
  return template.replaceAll("YYYY-MM-DD", date);
}

/**
 * True when a model's answer is the `NO_REPLY` token, alone (surrounding whitespace, quotes,
 * backticks, Markdown emphasis or a final full stop are tolerated): the caller swallows it and
 * shows the user nothing. An answer that merely mentions `NO_REPLY` among other text is a real reply.
 */
export function isNoReply(text: unknown): boolean {
  if (typeof text !== "string") return false;
  const bare = text.trim().replace(/^["'`*_\s]+|["'`*_.。\s]+$/gu, "");
  return bare === NO_REPLY;
}

/**
 * The flush turn's prompts for `date` (`YYYY-MM-DD`), the workspace's `flush.systemPrompt` /
 * `flush.userPrompt` overriding the defaults: what a host without a flush policy (an MCP client
 * offering the `flush` prompt) hands the model before its context is compacted.
 */
export function flushPrompts(
  flush: { systemPrompt?: string | undefined; userPrompt?: string | undefined } | undefined,
  date: string,
): { system: string; user: string } {
  return {
    system: flush?.systemPrompt ?? DEFAULT_FLUSH_SYSTEM_PROMPT,
    user: fillDate(flush?.userPrompt ?? DEFAULT_FLUSH_USER_PROMPT, date),
  };
}
