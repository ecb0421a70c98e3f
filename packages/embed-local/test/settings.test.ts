import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { envName, isEngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { huggingFaceEndpoint, isHfUri } from "../src/hf-uri.js";
import { localProvider } from "../src/index.js";
import {
  contextSizeFor,
  DEFAULT_MAX_CONTEXT_SIZE,
  optionsFromSettings,
  resolveLocalOptions,
} from "../src/settings.js";

describe("resolveLocalOptions", () => {
  it("applies the defaults", () => {
    expect(resolveLocalOptions({ modelPath: "/models/bge.gguf" })).toEqual({
      modelPath: "/models/bge.gguf",
      modelCacheDir: join(homedir(), ".cache", "engram", "models"),
      gpu: "auto",
      threads: undefined,
      contextSize: undefined,
      batchSize: 32,
      loadTimeoutMs: 300_000,
    });
  });

  it("expands ~ and resolves relative paths; keeps hf: URIs as given", () => {
    const options = resolveLocalOptions({
      modelPath: "~/models/bge.gguf",
      modelCacheDir: "cache/models",
    });
    expect(options.modelPath).toBe(join(homedir(), "models", "bge.gguf"));
    expect(options.modelCacheDir).toBe(resolve("cache/models"));
    expect(resolveLocalOptions({ modelPath: " hf:user/repo:Q8_0 " }).modelPath).toBe(
      "hf:user/repo:Q8_0",
    );
  });

  it("rejects a missing modelPath, an unknown gpu and non-positive numbers with CONFIG_INVALID", () => {
    const bad: Array<[Parameters<typeof resolveLocalOptions>[0], RegExp]> = [
      [{ modelPath: "" }, /modelPath is not set/],
      [{ modelPath: "m.gguf", gpu: "rocm" as "cuda" }, /gpu must be one of auto, cpu, cuda/],
      [{ modelPath: "m.gguf", threads: 0 }, /threads must be a positive integer, got 0/],
      [{ modelPath: "m.gguf", contextSize: 1.5 }, /contextSize must be a positive integer/],
      [{ modelPath: "m.gguf", batchSize: -1 }, /batchSize must be a positive integer/],
    ];
    for (const [options, message] of bad) {
      let error: unknown;
      try {
        resolveLocalOptions(options);
      } catch (e) {
        error = e;
      }
      expect(isEngramError(error, "CONFIG_INVALID")).toBe(true);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toMatch(/^embedding\.providers\.local\./);
    }
  });

  it("reads provider settings and refuses values of the wrong type", () => {
    expect(optionsFromSettings({ modelPath: "m.gguf", batchSize: 8, gpu: "cpu" })).toMatchObject({
      modelPath: "m.gguf",
      batchSize: 8,
      gpu: "cpu",
    });
    expect(() => optionsFromSettings({ modelPath: 3 })).toThrow(/modelPath must be a string/);
    expect(() => optionsFromSettings({ modelPath: "m", threads: "2" })).toThrow(/must be a number/);
  });

  it("declares every setting, camelCase, with ENGRAM_LOCAL_* names", () => {
    expect(Object.keys(localProvider.settings).sort()).toEqual([
      "batchSize",
      "contextSize",
      "gpu",
      "loadTimeoutMs",
      "modelCacheDir",
      "modelPath",
      "threads",
    ]);
    expect(envName("local", "modelPath")).toBe("ENGRAM_LOCAL_MODEL_PATH");
    for (const setting of Object.values(localProvider.settings)) {
      expect(setting.description.length).toBeGreaterThan(10);
      expect(setting.secret).toBeUndefined();
    }
  });
});

describe("hf: URIs", () => {
  it("recognises hf: URIs", () => {
    expect(isHfUri("hf:user/repo:Q8_0")).toBe(true);
    expect(isHfUri("HF:user/repo/file.gguf")).toBe(true);
    expect(isHfUri("/models/hf:odd.gguf")).toBe(false);
    expect(isHfUri("models/file.gguf")).toBe(false);
  });

  it("uses the endpoint node-llama-cpp downloads from: MODEL_ENDPOINT, HF_ENDPOINT, huggingface.co", () => {
    expect(huggingFaceEndpoint({}).href).toBe("https://huggingface.co/");
    expect(huggingFaceEndpoint({ HF_ENDPOINT: "https://hf-mirror.com" }).hostname).toBe(
      "hf-mirror.com",
    );
    expect(
      huggingFaceEndpoint({
        HF_ENDPOINT: "https://hf-mirror.com",
        MODEL_ENDPOINT: "http://m.local",
      }).hostname,
    ).toBe("m.local");
    expect(huggingFaceEndpoint({ HF_ENDPOINT: "not a url" }).hostname).toBe("huggingface.co");
  });
});

describe("contextSizeFor", () => {
  it("uses the setting, else the training context capped at 2048 tokens", () => {
    expect(contextSizeFor(undefined, 512)).toBe(512);
    expect(contextSizeFor(undefined, 2048)).toBe(2048);
    expect(contextSizeFor(undefined, 32_768)).toBe(DEFAULT_MAX_CONTEXT_SIZE);
    expect(DEFAULT_MAX_CONTEXT_SIZE).toBe(2048);
    expect(contextSizeFor(8192, 32_768)).toBe(8192);
    expect(contextSizeFor(64, 512)).toBe(64);
  });
});
