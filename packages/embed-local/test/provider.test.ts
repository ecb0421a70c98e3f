import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isEmbeddingError, resolveProviderSettings } from "@engram/core/driver";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type LocalEmbedder, localEmbedder, localProvider } from "../src/index.js";
import { rejection, useTinyModels } from "./helpers.js";

const models = useTinyModels();
const created: LocalEmbedder[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(created.splice(0).map((e) => e.close()));
});

async function create(settings: Record<string, unknown>): Promise<LocalEmbedder> {
  const embedder = (await localProvider.create(settings)) as LocalEmbedder;
  created.push(embedder);
  return embedder;
}

describe("localProvider", () => {
  it("resolves settings from ENGRAM_LOCAL_* variables and creates a working embedder", async () => {
    const env = {
      ENGRAM_LOCAL_MODEL_PATH: models.model,
      ENGRAM_LOCAL_BATCH_SIZE: "8",
      ENGRAM_LOCAL_GPU: "cpu",
      ENGRAM_LOCAL_THREADS: "1",
    };
    const settings = resolveProviderSettings(localProvider, { contextSize: 64 }, env);
    expect(settings).toEqual({
      modelPath: models.model,
      batchSize: 8,
      gpu: "cpu",
      threads: 1,
      contextSize: 64,
    });
    expect(await localProvider.check(settings)).toEqual({ ok: true });
    const embedder = await create(settings);
    expect(embedder).toMatchObject({ id: "local", model: "tiny-bert.gguf", dims: 32 });
    expect(embedder.maxBatchSize).toBe(8);
    expect(await embedder.embedBatch(["memory", "agent"])).toHaveLength(2);
  });

  it("check(): ok for a GGUF file, reasons otherwise, without loading anything", async () => {
    const text = join(models.dir, "notes.txt");
    await writeFile(text, "not a model");
    expect(await localProvider.check({ modelPath: models.model })).toEqual({ ok: true });
    const reasons: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /modelPath is not set/],
      [{ modelPath: join(models.dir, "gone.gguf") }, /model file not found: .*gone\.gguf/],
      [{ modelPath: text }, /notes\.txt is not a GGUF file/],
      [{ modelPath: models.dir }, /model path is not a file/],
      [{ modelPath: models.model, gpu: "tpu" }, /gpu must be one of/],
    ];
    for (const [settings, reason] of reasons) {
      const check = await localProvider.check(settings);
      expect(check.ok).toBe(false);
      expect(check.ok ? "" : check.reason).toMatch(reason);
    }
  });

  it("vectors of different model files never share an identity, even under the same name", async () => {
    const a = await models.write("a", { seed: 11 });
    const b = await models.write("b", { seed: 12 });
    const [ea, eb, ea2] = await Promise.all([
      create({ modelPath: a }),
      create({ modelPath: b }),
      create({ modelPath: a }),
    ]);
    expect(ea.model).toBe(eb.model); // both tiny-bert.gguf
    expect(ea.endpoint).not.toBe(eb.endpoint);
    expect(ea2.endpoint).toBe(ea.endpoint);
  });
});

describe("hf: models", () => {
  it("finds an hf: model already in modelCacheDir: check is ok and create works offline", async () => {
    const cache = join(models.dir, "hf-cache");
    await mkdir(cache, { recursive: true });
    // node-llama-cpp's file name for hf:<user>/<repo>/<file>: hf_<user>_<repo>_<file>.
    const cached = join(cache, "hf_engram_tiny-bert_tiny-bert.gguf");
    await copyFile(models.model, cached);
    const settings = { modelPath: "hf:engram/tiny-bert/tiny-bert.gguf", modelCacheDir: cache };
    expect(await localProvider.check(settings)).toEqual({ ok: true });
    const embedder = await create({ ...settings, gpu: "cpu", threads: 1 });
    expect(embedder.path).toBe(cached);
    expect(embedder.model).toBe("hf_engram_tiny-bert_tiny-bert.gguf");
    expect(await embedder.embedQuery("memory")).toHaveLength(32);
  });

  it("check() says an hf: model that is not cached yet needs a download, without the network", async () => {
    const check = await localProvider.check({
      modelPath: "hf:engram/absent/absent.gguf",
      modelCacheDir: join(models.dir, "empty-cache"),
    });
    expect(check).toEqual({
      ok: false,
      reason: expect.stringMatching(/is not in .*empty-cache yet .*needs the network/),
    });
    expect(await localProvider.check({ modelPath: "hf:nonsense" })).toEqual({
      ok: false,
      reason: expect.stringMatching(/Invalid Hugging Face URI/),
    });
  });

  it("create() fails fast with a network error when Hugging Face cannot be reached", async () => {
    // .invalid never resolves (RFC 2606), with or without a network: nothing is downloaded.
    vi.stubEnv("HF_ENDPOINT", "http://engram-offline.invalid/");
    const started = Date.now();
    const error = await rejection(
      localEmbedder({
        modelPath: "hf:engram/absent/absent.gguf",
        modelCacheDir: join(models.dir, "offline-cache"),
      }),
    );
    expect(isEmbeddingError(error)).toBe(true);
    expect(error).toMatchObject({ kind: "network", provider: "local", retryable: true });
    expect(String(error.message)).toMatch(
      /cannot download hf:engram\/absent\/absent\.gguf into .*offline-cache: engram-offline\.invalid cannot be resolved/,
    );
    expect(String(error.hint)).toMatch(/needs the network/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("create() rejects a malformed hf: URI with bad_input", async () => {
    expect(await rejection(localEmbedder({ modelPath: "hf:nonsense" }))).toMatchObject({
      kind: "bad_input",
      message: expect.stringMatching(/Invalid Hugging Face URI/),
    });
  });
});
