import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * Issue 20, item 9: `modelPath` naming a damaged GGUF file (`GGUF\x03\x00\x00\x00garbage`) made
 * `engram add x` hang inside node-llama-cpp's header reader, its memory growing without end
 * (485 MB after 45 s). It must end at once and say which file is damaged and what to do.
 */
describe("engram with a damaged local model file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it("ends at once and names the file and the fix", async () => {
    const model = join(dir, "bad.gguf");
    await writeFile(model, Buffer.from("GGUF\x03\x00\x00\x00garbage", "latin1"));
    const ws = join(dir, "ws");
    await writeFiles(ws, {
      "MEMORY.md": "# Memory\n",
      "engram.config.json": JSON.stringify({
        embedding: { provider: "local", providers: { local: { modelPath: model } } },
      }),
    });
    const { stdout, stderr } = await engram(["add", "the deploy window is Tuesday"], { cwd: ws });
    // Whether the write then goes ahead without vectors is the fallback's business (item 10);
    // what matters here is that the command ends and says what is wrong with which file.
    expect(`${stdout}${stderr}`).toContain(model);
    expect(`${stdout}${stderr}`).toMatch(/damaged GGUF|not a usable GGUF/);
  });
});
