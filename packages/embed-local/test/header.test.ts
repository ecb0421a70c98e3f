import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isEmbeddingError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { readModelHeader } from "../src/index.js";
import { writeGguf } from "./fixtures/gguf-writer.js";
import { buildTinyBertGguf } from "./fixtures/tiny-bert-gguf.js";
import { rejection, useTinyModels } from "./helpers.js";

const models = useTinyModels();

describe("readModelHeader", () => {
  it("reads architecture, dims and training context from the GGUF header", async () => {
    const header = await readModelHeader(models.model);
    expect(header).toMatchObject({
      path: models.model,
      architecture: "bert",
      dims: 32,
      contextLength: 256,
      name: "tiny-bert",
    });
    expect(header.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    const wide = await models.write("wide", { hiddenSize: 48, heads: 6, contextLength: 128 });
    expect(await readModelHeader(wide)).toMatchObject({ dims: 48, contextLength: 128 });
  });

  it("fingerprints content: same bytes → same fingerprint, another seed → another", async () => {
    const copy = await models.write("copy");
    const reseeded = await models.write("reseeded", { seed: 7 });
    const [a, b, c] = await Promise.all([models.model, copy, reseeded].map(readModelHeader));
    expect(b?.fingerprint).toBe(a?.fingerprint);
    expect(c?.fingerprint).not.toBe(a?.fingerprint);
  });

  it("prefers <arch>.embedding_length_out when the header has it", async () => {
    const path = join(models.dir, "out.gguf");
    await writeFile(
      path,
      writeGguf(
        [
          ["general.architecture", { type: "string", value: "qwen3" }],
          ["qwen3.embedding_length", { type: "u32", value: 1024 }],
          ["qwen3.embedding_length_out", { type: "u32", value: 768 }],
          ["qwen3.context_length", { type: "u32", value: 32768 }],
        ],
        [],
      ),
    );
    expect(await readModelHeader(path)).toMatchObject({ dims: 768, contextLength: 32768 });
  });

  it("fails with bad_input naming the path for a missing file, a folder, a non-GGUF file", async () => {
    const missing = join(models.dir, "missing.gguf");
    const text = join(models.dir, "notes.gguf");
    await writeFile(text, "# not a model\n");
    const cases: Array<[string, RegExp]> = [
      [missing, /model file not found: .*missing\.gguf/],
      [models.dir, /model path is not a file/],
      [text, /notes\.gguf is not a GGUF file/],
    ];
    for (const [path, message] of cases) {
      const error = await rejection(readModelHeader(path));
      expect(isEmbeddingError(error)).toBe(true);
      expect(error).toMatchObject({ kind: "bad_input", provider: "local" });
      expect(String(error.message)).toMatch(message);
      expect(String(error.hint)).toMatch(/modelPath/);
    }
  });

  it("fails with bad_input for a truncated header or a header without embedding_length", async () => {
    const truncated = join(models.dir, "truncated.gguf");
    await writeFile(truncated, buildTinyBertGguf().subarray(0, 100));
    expect(await rejection(readModelHeader(truncated))).toMatchObject({
      kind: "bad_input",
      message: expect.stringMatching(/damaged or truncated/),
    });
    const noDims = join(models.dir, "no-dims.gguf");
    await writeFile(
      noDims,
      writeGguf([["general.architecture", { type: "string", value: "bert" }]], []),
    );
    expect(await rejection(readModelHeader(noDims))).toMatchObject({
      kind: "bad_input",
      message: expect.stringMatching(/no bert\.embedding_length/),
    });
  });
});
