import { languageModelReranker } from "@engram/core";
import { type Candidate, rerankCandidates } from "@engram/core/internal";
import { afterEach, describe, expect, it } from "vitest";
import { openaiLanguageModel } from "../src/index.js";
import { API_KEY } from "./helpers.js";
import type { ChatCompletionsBody } from "./openai-chat-wire.js";
import { type OpenAIWireServer, startOpenAIWireServer } from "./openai-wire-server.js";

/** A fused candidate holding `text`. */
const candidate = (path: string, score: number, text: string): Candidate => ({
  chunk: {
    id: path,
    path,
    source: "memory",
    tier: "long",
    startLine: 1,
    endLine: 1,
    headings: [],
    text,
    hash: path,
  },
  score,
  scores: { text: score },
});

/**
 * The language-model reranker over a real driver (the OpenAI SDK) and a local server speaking the
 * Chat Completions wire format. The emulated model grades each numbered document in the prompt
 * by how many of the query's words it holds.
 */
describe("languageModelReranker through the OpenAI driver", () => {
  let server: OpenAIWireServer;
  afterEach(() => server?.close());

  const grade = (body: ChatCompletionsBody): string => {
    const prompt = String(body.messages?.at(-1)?.content ?? "");
    const query = /^Query: (.*)$/m.exec(prompt)?.[1] ?? "";
    const words = query.toLowerCase().split(/\W+/).filter(Boolean);
    const docs = [...prompt.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => m[2] ?? "");
    return JSON.stringify({
      scores: docs.map((d) => words.filter((w) => d.toLowerCase().includes(w)).length),
    });
  };

  it("grades every candidate in one structured call; the rerank stage takes its order", async () => {
    server = await startOpenAIWireServer({ apiKey: API_KEY, chat: { answer: grade } });
    const model = await openaiLanguageModel({
      apiKey: API_KEY,
      baseUrl: server.baseUrl,
      model: "gpt-4.1-mini",
    });
    const reranker = languageModelReranker(model);
    expect(reranker).toMatchObject({ id: "llm", model: "gpt-4.1-mini", maxDocuments: 20 });
    const docs = ["lunch was noodles", "the rollback plan for the deploy", "deploy on friday"];
    expect(await reranker.rerank("rollback plan deploy", docs)).toEqual([0, 3, 1]);
    const body = server.requests.at(-1)?.body as ChatCompletionsBody;
    expect(body.response_format?.type).toBe("json_schema");
    expect(body.response_format?.json_schema?.name).toBe("rerank_scores");

    const ranked = docs.map((text, i) => candidate(`n${i}.md`, 1 - i / 10, text));
    const { candidates, outcome } = await rerankCandidates(
      "rollback plan deploy",
      ranked,
      reranker,
      {
        candidates: 10,
        timeoutMs: 10_000,
        maxResults: 3,
      },
    );
    expect(outcome.applied).toBe(true);
    expect(candidates.map((c) => c.chunk.path)).toEqual(["n1.md", "n2.md", "n0.md"]);
  });

  it("a model that grades the wrong number of documents leaves the fused order", async () => {
    server = await startOpenAIWireServer({
      apiKey: API_KEY,
      chat: { answer: () => JSON.stringify({ scores: [9] }) },
    });
    const model = await openaiLanguageModel({
      apiKey: API_KEY,
      baseUrl: server.baseUrl,
      model: "gpt-4.1-mini",
    });
    const ranked = ["a", "b", "c"].map((text, i) => candidate(`n${i}.md`, 1 - i / 10, text));
    const { candidates, outcome } = await rerankCandidates(
      "q",
      ranked,
      languageModelReranker(model),
      {
        candidates: 10,
        timeoutMs: 10_000,
        maxResults: 3,
      },
    );
    expect(outcome).toMatchObject({
      applied: false,
      skipped: "the reranker answered 1 scores for 3 documents",
    });
    expect(candidates.map((c) => c.chunk.path)).toEqual(["n0.md", "n1.md", "n2.md"]);
  });
});
