import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type LocalEmbedder, type LocalEmbedderOptions, localEmbedder } from "../src/index.js";
import { type TinyBertOptions, writeTinyBertGguf } from "./fixtures/tiny-bert-gguf.js";

/** Paths of the generated models (valid inside tests, after `beforeAll`). */
export interface TinyModels {
  /** A temp folder, removed after the file's tests. */
  dir: string;
  /** The default tiny BERT: 32 dims, 256-token training context, seed 1. */
  model: string;
}

/**
 * Generate the tiny BERT model into a temp folder before the file's tests and remove it after.
 * Embedders made with the returned `create` are closed after each test.
 */
export function useTinyModels(): TinyModels & {
  write(name: string, options?: TinyBertOptions): Promise<string>;
  create(options: LocalEmbedderOptions): Promise<LocalEmbedder>;
} {
  const open: LocalEmbedder[] = [];
  const state = {
    dir: "",
    model: "",
    async write(name: string, options: TinyBertOptions = {}) {
      return writeTinyBertGguf(join(state.dir, name), options);
    },
    async create(options: LocalEmbedderOptions) {
      // One thread: llama.cpp's threads spin at a barrier for each other, and on a busy machine
      // (vitest runs four files at once on two cores) two threads made calls 5–200× slower.
      const embedder = await localEmbedder({ gpu: "cpu", threads: 1, ...options });
      open.push(embedder);
      return embedder;
    },
  };
  beforeAll(async () => {
    state.dir = await mkdtemp(join(tmpdir(), "engram-embed-local-"));
    state.model = await writeTinyBertGguf(state.dir);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((e) => e.close()));
  });
  afterAll(async () => {
    await rm(state.dir, { recursive: true, force: true });
  });
  return state;
}

/** Cosine similarity of two vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

/** L2 norm. */
export function norm(v: Float32Array): number {
  let sum = 0;
  for (const x of v) sum += x * x;
  return Math.sqrt(sum);
}

/** Resolve to the rejection of `promise` (fails when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error("expected the promise to reject");
}
