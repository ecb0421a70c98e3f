import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isEmbeddingError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import { checkGgufLayout } from "../src/gguf-layout.js";
import { localEmbedder, localProvider, readModelHeader } from "../src/index.js";
import { writeGguf } from "./fixtures/gguf-writer.js";
import { rejection, useTinyModels } from "./helpers.js";

const models = useTinyModels();

/** The 16-byte GGUF header: magic, version, tensor count, metadata count. */
function header(version: number, tensors: bigint, entries: bigint): Buffer {
  const b = Buffer.alloc(24);
  b.write("GGUF", 0, "latin1");
  b.writeUInt32LE(version, 4);
  b.writeBigUInt64LE(tensors, 8);
  b.writeBigUInt64LE(entries, 16);
  return b;
}

/**
 * Damaged GGUF files fail fast with `bad_input` naming the path and the fix. Before the layout
 * check, node-llama-cpp's header reader looped on them, reading zeros past the end of the file and
 * growing its buffer without end (issue 20, item 9): these tests then hung until vitest's timeout.
 */
describe("a damaged GGUF model", () => {
  const expectDamaged = async (path: string, reason: RegExp) => {
    const error = await rejection(readModelHeader(path));
    expect(isEmbeddingError(error), String(error)).toBe(true);
    expect(error).toMatchObject({
      kind: "bad_input",
      provider: "local",
      code: "EMBEDDING_BAD_INPUT",
    });
    expect(String(error.message)).toContain(path);
    expect(String(error.message)).toMatch(reason);
    expect(String(error.hint)).toMatch(/download the model again.*modelPath/);
  };

  it("refuses the issue's file: the magic, version 3, then 7 bytes of garbage", async () => {
    const path = join(models.dir, "bad.gguf");
    await writeFile(path, Buffer.from("GGUF\x03\x00\x00\x00garbage", "latin1"));
    await expectDamaged(path, /not a usable GGUF model: .*end of the file/);
  });

  it("refuses counts and lengths the file cannot hold", async () => {
    const padding = Buffer.alloc(4096, 0x61);
    const cases: Array<[string, Buffer, RegExp]> = [
      ["tensors.gguf", Buffer.concat([header(3, 2n ** 61n, 0n), padding]), /tensor count/],
      ["entries.gguf", Buffer.concat([header(3, 0n, 2n ** 40n), padding]), /metadata entry count/],
      [
        "key.gguf",
        // one entry whose key claims to be 2^50 bytes long
        Buffer.concat([header(3, 0n, 1n), Buffer.from([0, 0, 0, 0, 0, 0, 4, 0]), padding]),
        /metadata key 1's length/,
      ],
      ["v1.gguf", Buffer.concat([header(1, 0n, 0n), padding]), /version 1/],
      ["v9.gguf", Buffer.concat([header(9, 0n, 0n), padding]), /version 9/],
    ];
    for (const [name, bytes, reason] of cases) {
      const path = join(models.dir, name);
      await writeFile(path, bytes);
      await expectDamaged(path, reason);
    }
  });

  it("refuses an array whose length runs past the end, and an unknown value type", async () => {
    const array = writeGguf([["tokenizer.ggml.scores", { type: "f32[]", value: [1, 2, 3] }]], []);
    const bytes = Buffer.from(array);
    // The array's u64 length sits after: header 24, key (8 + 21), value type 4, item type 4.
    const lengthAt = 24 + 8 + "tokenizer.ggml.scores".length + 4 + 4;
    expect(bytes.readBigUInt64LE(lengthAt)).toBe(3n);
    bytes.writeBigUInt64LE(10n ** 9n, lengthAt);
    const long = join(models.dir, "array.gguf");
    await writeFile(long, bytes);
    await expectDamaged(long, /metadata entry 1's length/);

    const typed = Buffer.from(writeGguf([["general.name", { type: "u32", value: 1 }]], []));
    typed.writeUInt32LE(77, 24 + 8 + "general.name".length);
    const unknown = join(models.dir, "type.gguf");
    await writeFile(unknown, typed);
    await expectDamaged(unknown, /unknown value type 77/);
  });

  it("refuses a real model cut in the middle of its header, accepts it whole", async () => {
    const whole = await readFile(models.model);
    expect((await readModelHeader(models.model)).dims).toBe(32);
    const { headerEnd, tensorCount } = await checkGgufLayout(models.model, whole.length);
    expect(tensorCount).toBeGreaterThan(10);
    const cut = join(models.dir, "cut.gguf");
    // Cut inside the last tensor infos: every count still fits, the walk runs off the end.
    await writeFile(cut, whole.subarray(0, headerEnd - 30));
    await expectDamaged(cut, /tensor (info|name) \d+/);
  });

  it("is not offered by the provider check, and localEmbedder refuses it", async () => {
    const path = join(models.dir, "bad-provider.gguf");
    await writeFile(path, Buffer.from("GGUF\x03\x00\x00\x00garbage", "latin1"));
    const check = await localProvider.check({ modelPath: path });
    expect(check).toMatchObject({ ok: false, reason: expect.stringMatching(/damaged GGUF file/) });
    const error = await rejection(localEmbedder({ modelPath: path }));
    expect(error).toMatchObject({ kind: "bad_input", message: expect.stringContaining(path) });
  });
});
