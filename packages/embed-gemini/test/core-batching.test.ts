import { createHash } from "node:crypto";
import { embedTexts } from "@engram/core/internal";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { geminiEmbedder } from "../src/index.js";
import {
  fakeValues,
  type GeminiWireServer,
  sentRequests,
  startGeminiWireServer,
} from "./gemini-wire-server.js";

let server: GeminiWireServer;
beforeEach(async () => {
  server = await startGeminiWireServer();
});
afterEach(async () => {
  await server.close();
});

describe("with core's batching", () => {
  it("core splits 250 texts into batchEmbedContents-sized requests, two in flight", async () => {
    const embedder = await geminiEmbedder({
      apiKey: server.apiKey,
      baseUrl: server.url,
      outputDimensionality: 128,
    });
    server.latencyMs = 100; // slow answers, so core's lanes overlap
    const inputs = Array.from({ length: 250 }, (_, i) => {
      const text = `memory note ${i}`;
      return { text, hash: createHash("sha256").update(text).digest("hex") };
    });
    const { vectors } = await embedTexts(inputs, embedder);
    const sizes = server.requests.map((r) => sentRequests(r).length);
    expect(sizes.sort((a, b) => b - a)).toEqual([100, 100, 50]);
    expect(server.maxInFlight).toBe(2);
    // Every text got its own vector back, in place.
    expect(vectors).toHaveLength(250);
    for (const i of [0, 99, 100, 249]) {
      const raw = fakeValues(`memory note ${i}`, "RETRIEVAL_DOCUMENT", 128);
      const norm = Math.sqrt(raw.reduce((s, x) => s + x * x, 0));
      expect(vectors[i]?.[0]).toBeCloseTo((raw[0] ?? 0) / norm, 6);
      expect(vectors[i]?.[127]).toBeCloseTo((raw[127] ?? 0) / norm, 6);
    }
  });
});
