import type { JsonSchema } from "../agent/tools-definitions.js";

/** The system prompt of a consolidation call. */
export const CONSOLIDATION_SYSTEM_PROMPT = `You curate the long-term memory of an AI agent. Long-term memory is Markdown the user reads; new notes arrive in daily logs and session files. Compare the new notes with long-term memory and propose operations as JSON.

Operations:
- ADD: a lasting fact from the new notes that long-term memory lacks (preferences, decisions, people, projects, plans, lessons). "target": the long-term file, or "" for the default; "section": a heading of that file, or "".
- UPDATE: an entry of long-term memory gains detail or is reworded. "target": its lines. Keep every name, number, date and key term it holds.
- SUPERSEDE: a newer note contradicts an entry. "target": the entry's lines; "text": the corrected fact; "sources": the newer note's lines. The old entry is archived.
- MERGE: entries of long-term memory that say the same thing. "target": the entry to keep; "merge": the others; "text": one entry holding every fact of all of them.
- SUMMARY: at most one short summary per day of notes.

Rules:
- Cite lines exactly as they are shown: "path:start-end" or "path:line". Every operation except MERGE cites its "sources".
- State only what the cited lines say. Copy names, numbers, dates and key terms exactly; write dates as YYYY-MM-DD, never "yesterday".
- Write each fact in the language of its notes, as one short sentence.
- Skip small talk, greetings and passing status. Never copy a fact that long-term memory already holds.
- When nothing is worth keeping, answer {"operations": []}.`;

/** The JSON Schema of a consolidation answer (every field required: OpenAI strict mode). */
export const CONSOLIDATION_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    operations: {
      type: "array",
      items: {
        type: "object",
        properties: {
          op: { type: "string", enum: ["ADD", "UPDATE", "SUPERSEDE", "MERGE", "SUMMARY"] },
          text: { type: "string" },
          target: { type: "string" },
          merge: { type: "array", items: { type: "string" } },
          sources: { type: "array", items: { type: "string" } },
          section: { type: "string" },
          reason: { type: "string" },
        },
        required: ["op", "text", "target", "merge", "sources", "section", "reason"],
        additionalProperties: false,
      },
    },
  },
  required: ["operations"],
  additionalProperties: false,
};

/** One operation as the model writes it. */
export interface RawOperation {
  op: string;
  text: string;
  target: string;
  merge: string[];
  sources: string[];
  section: string;
  reason: string;
}

/** The user message: today's date, long-term memory and the new notes, each line cited. */
export function consolidationPrompt(input: {
  today: string;
  defaultFile: string;
  curated: readonly string[];
  notes: readonly string[];
}): string {
  return [
    `Today is ${input.today}. New facts go to ${input.defaultFile} unless you name another long-term file.`,
    "",
    "## Long-term memory",
    input.curated.length ? input.curated.join("\n") : "(empty)",
    "",
    "## New notes",
    input.notes.join("\n"),
  ].join("\n");
}
