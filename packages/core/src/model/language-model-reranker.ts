import type { JsonSchema } from "../agent/tools-definitions.js";
import type { LanguageModel } from "./language-model.js";
import type { Reranker } from "./reranker.js";

/** Options of {@link languageModelReranker}. */
export interface LanguageModelRerankerOptions {
  /** Most documents per call (default 20: one prompt holds them all). */
  maxDocuments?: number;
  /** Each document is cut to this many characters in the prompt (default 800). */
  maxCharsPerDocument?: number;
}

const SYSTEM = [
  "You rank search results for a memory search.",
  "For each numbered document, judge how well it answers or is relevant to the query,",
  "from 0 (unrelated) to 10 (answers it directly). Judge each document on its own text.",
  "Answer with one integer per document, in the order given.",
].join(" ");

/**
 * A {@link Reranker} that asks a {@link LanguageModel} (any provider: OpenAI-compatible servers,
 * Gemini, a local GGUF chat model; usually the workspace's `memory.languageModel` chain with its
 * retries, breaker and token accounting) to grade every candidate 0–10 in one structured call
 * (`{ scores: number[] }`, checked against the schema by the driver). Documents are numbered and
 * cut to `maxCharsPerDocument`; an answer with another number of scores is a bad answer, which
 * the rerank stage treats as "keep the fused order". Slower and costlier than a cross-encoder;
 * useful when a chat model is all there is.
 */
export function languageModelReranker(
  model: LanguageModel,
  options: LanguageModelRerankerOptions = {},
): Reranker {
  const maxChars = options.maxCharsPerDocument ?? 800;
  return {
    id: "llm",
    model: model.model,
    ...(model.endpoint !== undefined ? { endpoint: model.endpoint } : {}),
    maxDocuments: options.maxDocuments ?? 20,
    async rerank(query, documents, callOptions = {}) {
      if (!documents.length) return [];
      const listed = documents
        .map((d, i) => `[${i}] ${d.length > maxChars ? `${d.slice(0, maxChars)}…` : d}`)
        .join("\n\n");
      const schema: JsonSchema = {
        type: "object",
        properties: {
          scores: {
            type: "array",
            items: { type: "integer" },
            description: `exactly ${documents.length} integers from 0 to 10, one per document in order`,
          },
        },
        required: ["scores"],
        additionalProperties: false,
      };
      const { value } = await model.generate<{ scores: unknown }>({
        system: SYSTEM,
        messages: [
          {
            role: "user",
            content: `Query: ${query}\n\n${documents.length} documents:\n\n${listed}\n\nGrade each document 0–10.`,
          },
        ],
        schema,
        schemaName: "rerank_scores",
        maxTokens: 32 + 6 * documents.length,
        temperature: 0,
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      });
      const scores = value?.scores;
      // The rerank stage checks the count and that every score is a finite number.
      return Array.isArray(scores)
        ? scores.map((s) => (typeof s === "number" ? s : Number.NaN))
        : [];
    },
  };
}
