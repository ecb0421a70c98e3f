import {
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "../../embed-openai/test/openai-wire-server.js";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/** A temp workspace whose CLI calls embed through a local server speaking OpenAI's wire format. */
export interface OpenAIWorkspace {
  ws: string;
  server: OpenAIWireServer;
  /** The environment that points `engram` at {@link server} (key, base URL, a short timeout). */
  env: NodeJS.ProcessEnv;
  /** Stops the server and removes the workspace. */
  close(): Promise<void>;
}

/** Starts the wire server and writes `files` (path → content) into a new temp workspace. */
export async function openAIWorkspace(files: Record<string, string>): Promise<OpenAIWorkspace> {
  const ws = await tempDir();
  const server = await startOpenAIWireServer({ apiKey: "sk-test-key" });
  await writeFiles(ws, files);
  return {
    ws,
    server,
    env: {
      OPENAI_API_KEY: "sk-test-key",
      ENGRAM_OPENAI_BASE_URL: server.baseUrl,
      ENGRAM_OPENAI_TIMEOUT_MS: "5000",
    },
    close: async () => {
      await server.close();
      await removeDir(ws);
    },
  };
}
