/**
 * The "recall what you know about X" request: asks the model to search memory for `topic`, read
 * what it finds and answer with citations (`path:start-end`), saying plainly when memory holds
 * nothing. Served as the MCP prompt `recall`; any host may send it as a user message.
 */
export function recallPrompt(topic: string): string {
  return (
    `Recall what you know about: ${topic.trim()}\n\n` +
    "Search memory with memory_search (try a second wording, or another language, if the first " +
    "finds little), read the most relevant results in full with memory_get, and answer from what " +
    "memory holds, citing each fact as path:start-end. Say which facts are old or contradicted " +
    "by newer notes. If memory holds nothing about it, say so; do not guess."
  );
}
