// Ask a question of engram memory through the OpenAI or Anthropic SDK's tool runner.
//   node dist/main.js openai "What did we decide about the rollback plan?" [workspace]
//   node dist/main.js anthropic "…" [workspace]
// Needs OPENAI_API_KEY (OPENAI_BASE_URL for Ollama, vLLM, LM Studio, OpenRouter) or
// ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL); ENGRAM_EXAMPLE_MODEL picks the model.
import Anthropic from "@anthropic-ai/sdk";
import { createMemory } from "@engram/core";
import { sqliteStore } from "@engram/store-sqlite";
import OpenAI from "openai";
import { askWithAnthropic } from "./anthropic-runner.js";
import { askWithOpenAi } from "./openai-runner.js";

const [provider, question, workspace = process.cwd()] = process.argv.slice(2);
if ((provider !== "openai" && provider !== "anthropic") || !question) {
  console.error('usage: node dist/main.js openai|anthropic "question" [workspace]');
  process.exit(2);
}
const memory = await createMemory({ workspace, store: sqliteStore() });
try {
  await memory.sync(); // pick up edits made since the index was last brought up to date
  const model = process.env.ENGRAM_EXAMPLE_MODEL;
  const answer =
    provider === "openai"
      ? await askWithOpenAi(new OpenAI(), memory, question, model)
      : await askWithAnthropic(new Anthropic(), memory, question, model);
  console.log(answer);
} finally {
  await memory.close();
}
