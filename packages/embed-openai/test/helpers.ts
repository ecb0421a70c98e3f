import { isEmbeddingError } from "@engram/core/driver";
import { expect } from "vitest";
import { fakeVector } from "./openai-wire-server.js";

/** A key shaped like a real one; tests assert it never leaks. */
export const API_KEY = "sk-proj-engramTEST0123456789abcdefghijKLMNOP";

/** What the emulator's vector for `text` becomes after L2 normalisation (computed here, in float64). */
export function expectedVector(text: string, dims: number): number[] {
  const raw = Array.from(fakeVector(text, dims));
  const norm = Math.sqrt(raw.reduce((sum, x) => sum + x * x, 0));
  return raw.map((x) => x / norm);
}

/** Assert `actual` equals `expected` to float32 precision. */
export function expectVector(actual: Float32Array | undefined, expected: number[]): void {
  expect(actual).toBeInstanceOf(Float32Array);
  expect(actual?.length).toBe(expected.length);
  let worst = 0;
  expected.forEach((x, i) => {
    worst = Math.max(worst, Math.abs((actual?.[i] ?? Number.NaN) - x));
  });
  expect(worst).toBeLessThan(1e-6);
}

/** The L2 norm of a vector. */
export function norm(vector: Float32Array | undefined): number {
  return Math.sqrt(Array.from(vector ?? []).reduce((sum, x) => sum + x * x, 0));
}

/** Run `fn`, expect it to reject with an EmbeddingError, and return it. */
export async function embeddingFailure(fn: () => Promise<unknown>) {
  const error = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isEmbeddingError(error)) throw new Error(`expected an EmbeddingError, got ${String(error)}`);
  return error;
}
