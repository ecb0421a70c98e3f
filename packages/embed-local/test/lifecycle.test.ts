import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isEmbeddingError, isEngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { localEmbedder } from "../src/index.js";
import { buildTinyBertGguf } from "./fixtures/tiny-bert-gguf.js";
import { rejection, useTinyModels } from "./helpers.js";

const models = useTinyModels();

describe("localEmbedder lifecycle", () => {
  it("learns dims from the header at create and loads the weights on first use only", async () => {
    const embedder = await models.create({ modelPath: models.model });
    expect(embedder).toMatchObject({
      id: "local",
      model: "tiny-bert.gguf",
      dims: 32,
      maxBatchSize: 32,
      maxConcurrency: 1,
      architecture: "bert",
      path: models.model,
      loaded: false,
      loads: 0,
      gpu: undefined,
    });
    expect(embedder.endpoint).toMatch(/^gguf:[0-9a-f]{16}$/);
    const vector = await embedder.embedQuery("memory search");
    expect(vector).toBeInstanceOf(Float32Array);
    expect(vector).toHaveLength(32);
    expect(embedder).toMatchObject({ loaded: true, loads: 1, gpu: false });
  });

  it("creates from a file whose tensor data is missing: create reads the header only", async () => {
    const headerOnly = join(models.dir, "header-only.gguf");
    await writeFile(headerOnly, buildTinyBertGguf().subarray(0, 40_000));
    const embedder = await models.create({ modelPath: headerOnly });
    expect(embedder.dims).toBe(32);
    const error = await rejection(embedder.embedQuery("memory"));
    expect(isEmbeddingError(error)).toBe(true);
    expect(error).toMatchObject({ kind: "bad_input", provider: "local" });
    expect(String(error.message)).toMatch(/cannot load header-only\.gguf/);
    // llama.cpp's own words are quoted, not printed.
    expect(String(error.message)).toMatch(/llama\.cpp: .*not within the file bounds/);
    expect(String(error.hint)).toMatch(/download it again/);
    expect(embedder.loaded).toBe(false);
    // A failed load is not cached: the next call tries again (and fails the same way).
    await rejection(embedder.embedQuery("memory"));
    expect(embedder.loads).toBe(2);
  });

  it("shares one load between concurrent first calls", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const [query, batch, again] = await Promise.all([
      embedder.embedQuery("agent"),
      embedder.embedBatch(["memory", "vector index"]),
      embedder.embedQuery("agent"),
    ]);
    expect(embedder.loads).toBe(1);
    expect(batch).toHaveLength(2);
    expect(query).toEqual(again);
  });

  it("close() frees the model; later calls reject with CLOSED; close is idempotent", async () => {
    const embedder = await models.create({ modelPath: models.model });
    await embedder.embedQuery("memory");
    await embedder.close();
    expect(embedder.loaded).toBe(false);
    for (const call of [embedder.embedQuery("memory"), embedder.embedBatch(["memory"])]) {
      const error = await rejection(call);
      expect(isEngramError(error, "CLOSED")).toBe(true);
      expect(String(error.message)).toMatch(/tiny-bert\.gguf is closed/);
      expect(String(error.hint)).toMatch(/create a new embedder/);
    }
    await embedder.close();
  });

  it("close() during the first load waits for it, disposes it, and the call rejects with CLOSED", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const pending = rejection(embedder.embedBatch(["memory", "agent"]));
    await embedder.close();
    expect(isEngramError(await pending, "CLOSED")).toBe(true);
    expect(embedder.loads).toBe(1);
    expect(embedder.loaded).toBe(false);
  });

  it("close() before any call never loads the model", async () => {
    const embedder = await models.create({ modelPath: models.model });
    await embedder.close();
    expect(isEngramError(await rejection(embedder.embedQuery("x")), "CLOSED")).toBe(true);
    expect(embedder.loads).toBe(0);
  });

  it("honours an AbortSignal before loading and between texts", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const aborted = AbortSignal.abort();
    expect(await rejection(embedder.embedQuery("memory", aborted))).toBe(aborted.reason);
    expect(embedder.loads).toBe(0);

    await embedder.embedQuery("warm up");
    const controller = new AbortController();
    const texts = Array.from({ length: 200 }, (_, i) => `memory agent ${i}`);
    const pending = embedder.embedBatch(texts, controller.signal);
    setTimeout(() => controller.abort(), 0);
    const error = await rejection(pending);
    expect(error).toBe(controller.signal.reason);
    expect(error.name).toBe("AbortError");
  });

  it("fails at create with typed errors: missing file, not GGUF, bad options", async () => {
    const missing = await rejection(localEmbedder({ modelPath: join(models.dir, "nope.gguf") }));
    expect(missing).toMatchObject({ kind: "bad_input", code: "EMBEDDING_BAD_INPUT" });
    expect(String(missing.message)).toContain(join(models.dir, "nope.gguf"));

    const text = join(models.dir, "readme.gguf");
    await writeFile(text, "hello");
    expect(await rejection(localEmbedder({ modelPath: text }))).toMatchObject({
      kind: "bad_input",
      message: expect.stringMatching(/is not a GGUF file/),
    });

    expect(await rejection(localEmbedder({ modelPath: "  " }))).toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/modelPath is not set/),
      hint: expect.stringMatching(/ENGRAM_LOCAL_MODEL_PATH/),
    });
    expect(
      await rejection(localEmbedder({ modelPath: models.model, contextSize: 1024 })),
    ).toMatchObject({
      kind: "bad_input",
      message: expect.stringMatching(/contextSize 1024 exceeds the training context .* \(256/),
    });
  });
});
