import { describe, expect, it } from "vitest";
import { unitVector } from "../src/vectors.js";
import { cosine, norm, rejection, useTinyModels } from "./helpers.js";

const models = useTinyModels();

/** Words that are single tokens of the tiny vocabulary. */
const WORDS = ["memory", "agent", "search", "index", "vector", "model", "query", "result"];
const words = (n: number) => Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length]).join(" ");

// Order, batches vs single texts, determinism, unit vectors, empty batches: the conformance kit.
describe("local embeddings", () => {
  it("embedQuery gives a text's document vector: local models have no query type", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const [memory, chinese] = await embedder.embedBatch(["memory search", "用户偏好深色模式"]);
    expect(await embedder.embedQuery("memory search")).toEqual(memory);
    expect(await embedder.embedQuery("用户偏好深色模式")).toEqual(chinese);
  });

  it("gives the same vectors with another thread count; word order matters", async () => {
    const a = await models.create({ modelPath: models.model });
    const b = await models.create({ modelPath: models.model, threads: 2 });
    const texts = ["memory search", "search memory"];
    const [va, vb] = await Promise.all([a.embedBatch(texts), b.embedBatch(texts)]);
    for (let i = 0; i < texts.length; i++) {
      expect(cosine(va[i] as Float32Array, vb[i] as Float32Array)).toBeGreaterThan(0.99999);
    }
    expect(cosine(va[0] as Float32Array, va[1] as Float32Array)).toBeLessThan(0.9999);
  });

  it("tokenises Chinese into real vocabulary ids, not [UNK]s", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const [pref, dark, unknownA, unknownB] = await embedder.embedBatch([
      "用户偏好",
      "深色模式",
      "鑫龘靐齉", // four characters the vocabulary lacks: [UNK] × 4
      "鱻麤厵灥", // four others it lacks: the same [UNK] × 4
    ]);
    expect(unknownA).toEqual(unknownB);
    expect(cosine(pref as Float32Array, dark as Float32Array)).toBeLessThan(0.99);
    expect(cosine(pref as Float32Array, unknownA as Float32Array)).toBeLessThan(0.99);
  });

  it("truncates a text longer than the context to its head (contextSize − 1 − special tokens)", async () => {
    const embedder = await models.create({ modelPath: models.model, contextSize: 32 });
    // 32 − 1 − 2 ([CLS], [SEP]) = 29 text tokens fit.
    const [long, head29, head28] = await embedder.embedBatch([words(100), words(29), words(28)]);
    expect(long).toEqual(head29);
    expect(cosine(long as Float32Array, head28 as Float32Array)).toBeLessThan(0.99999);
  });

  it("uses the model's training context by default (256 → 253 text tokens)", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const [long, head253, head252] = await embedder.embedBatch([
      words(1000),
      words(253),
      words(252),
    ]);
    expect(long).toEqual(head253);
    expect(long).not.toEqual(head252);
  });

  it("embeds an empty text as the special tokens alone ([CLS] [SEP])", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const [empty, blank, word] = await embedder.embedBatch(["", " \n\t ", "memory"]);
    expect(empty).toHaveLength(32);
    expect(norm(empty as Float32Array)).toBeCloseTo(1, 5);
    expect(blank).toEqual(empty); // whitespace has no tokens either
    expect(cosine(empty as Float32Array, word as Float32Array)).toBeLessThan(0.99);
  });

  it("rejects a non-string text with bad_input", async () => {
    const embedder = await models.create({ modelPath: models.model });
    const error = await rejection(embedder.embedBatch([42 as unknown as string]));
    expect(error).toMatchObject({ kind: "bad_input", message: expect.stringMatching(/strings/) });
  });
});

describe("unitVector", () => {
  it("normalises and copies into a Float32Array", () => {
    const v = unitVector([3, 4], 2, "m");
    expect(v).toBeInstanceOf(Float32Array);
    expect([...v]).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
  });

  it("throws bad_response for a wrong size, a non-finite value or a zero vector", () => {
    expect(() => unitVector([1, 2, 3], 2, "m")).toThrow(/3-dimensional vector, expected 2/);
    expect(() => unitVector([1, Number.NaN], 2, "m")).toThrow(/not a finite number/);
    expect(() => unitVector([0, 0], 2, "m")).toThrow(/all zeros/);
    try {
      unitVector([0, 0], 2, "m");
    } catch (error) {
      expect(error).toMatchObject({ kind: "bad_response", provider: "local" });
    }
  });
});
