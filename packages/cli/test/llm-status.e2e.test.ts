import { createMemory, type MemoryStatus } from "@engram/core";
import { openaiLanguageModelProvider } from "@engram/embed-openai";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  insufficientQuota,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "../../embed-openai/test/openai-wire-server.js";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

const KEY = "sk-test-llm-key";
const ask = { messages: [{ role: "user" as const, content: "总结：用户偏好深色模式" }] };

/**
 * `engram status` (a child process) shows the language model chosen from the environment, its
 * health and the tokens spent, as another process (the library, here) left them in the index.
 */
describe("engram status with a language model", () => {
  let ws: string;
  let server: OpenAIWireServer;
  let env: NodeJS.ProcessEnv;
  const status = async (json: boolean) => {
    const { code, stdout, stderr } = await engram(
      ["status", ...(json ? ["--json"] : []), "--workspace", ws],
      { env },
    );
    expect(code, stderr).toBe(0);
    return stdout;
  };
  /** What a consolidation run in another process would do: one call through the config's model. */
  const callFromLibrary = async () => {
    const memory = await createMemory({
      workspace: ws,
      store: sqliteStore(),
      env,
      languageModels: { openai: async () => openaiLanguageModelProvider },
      config: { llm: { retry: { retries: 0 } } },
    });
    try {
      return await memory.languageModel?.generate(ask).catch((e: unknown) => e);
    } finally {
      await memory.close();
    }
  };

  beforeEach(async () => {
    ws = await tempDir();
    await writeFiles(ws, { "MEMORY.md": "# Memory\n\n用户偏好：深色模式\n" });
    server = await startOpenAIWireServer({ apiKey: KEY });
    env = {
      OPENAI_API_KEY: KEY,
      ENGRAM_OPENAI_BASE_URL: server.baseUrl,
      ENGRAM_EMBEDDING_PROVIDER: "none",
    };
  });
  afterEach(async () => {
    await server.close();
    await removeDir(ws);
  });

  it("says there is none by default, even with an API key around", async () => {
    expect(await status(false)).toMatch(/^LLM {9}none \(llm\.provider is none\)$/m);
    const json = JSON.parse(await status(true)) as MemoryStatus;
    expect(json.llm).toMatchObject({ models: [], maxTokensPerRun: null });
  });

  it("shows the chosen model, the tokens another process spent, and a paused model", async () => {
    env.ENGRAM_LLM_PROVIDER = "openai";
    env.ENGRAM_LLM_MODEL = "gpt-4.1-mini";
    await callFromLibrary();
    await callFromLibrary();
    const json = JSON.parse(await status(true)) as MemoryStatus;
    const [model] = json.llm.models;
    expect(model).toMatchObject({
      id: "openai",
      model: "gpt-4.1-mini",
      endpoint: server.baseUrl,
      primary: true,
      circuit: { state: "closed" },
    });
    expect(json.llm.spent.requests).toBe(2);
    expect(json.llm.spent.inputTokens).toBeGreaterThan(0);
    expect(model?.spent).toEqual(json.llm.spent);
    const text = await status(false);
    expect(text).toMatch(
      /^LLM {9}tokens spent: [\d,]+ in \/ [\d,]+ out in 2 call\(s\) \(no cap per run\)$/m,
    );
    expect(text).toContain(`primary   openai/gpt-4.1-mini@${server.baseUrl} — ok`);

    server.always("POST /chat/completions", insufficientQuota());
    const error = await callFromLibrary();
    expect(error).toMatchObject({ code: "MODEL_QUOTA" });
    const paused = await status(false);
    expect(paused).toMatch(
      /primary {3}openai\/gpt-4\.1-mini@\S+ — open until \S+ \(MODEL_QUOTA: openai: HTTP 429: You exceeded your current quota/,
    );
    // The status process never called the model.
    expect(server.count("POST /chat/completions")).toBe(3);
  });
});
