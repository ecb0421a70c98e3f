import { getEventListeners } from "node:events";
import { isEmbeddingError } from "@engram/core/driver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { geminiEmbedder } from "../src/index.js";
import { type GeminiWireServer, startGeminiWireServer } from "./gemini-wire-server.js";

let server: GeminiWireServer;
beforeEach(async () => {
  server = await startGeminiWireServer();
});
afterEach(async () => {
  await server.close();
});

const embedder = (options: Parameters<typeof geminiEmbedder>[0] = {}) =>
  geminiEmbedder({ apiKey: server.apiKey, baseUrl: server.url, ...options });

const settle = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => "resolved",
    (error: unknown) => error,
  );

// timeoutMs must outlast the request's way to the server on a loaded machine (a CI run with
// vitest workers on both cores took over 300 ms), yet end well before the server's delay.
// Headers slower than timeoutMs, and aborts before and during a call: the conformance kit.
describe("timeouts", () => {
  it("a body that stalls after the headers → timeout too", async () => {
    server.queue({ status: 200, json: { embeddings: [{ values: [1] }] }, bodyDelayMs: 5_000 });
    const e = await embedder({ timeoutMs: 1_500 });
    const error = await settle(e.embedBatch(["stalls"]));
    expect(isEmbeddingError(error) && error.kind).toBe("timeout");
    expect(server.requests).toHaveLength(1);
  });
});

describe("network failures", () => {
  it("nothing listening → network, naming the endpoint", async () => {
    const gone = await startGeminiWireServer();
    await gone.close();
    const e = await geminiEmbedder({ apiKey: gone.apiKey, baseUrl: gone.url });
    const error = await settle(e.embedQuery("anyone there?"));
    expect(isEmbeddingError(error) && error.kind).toBe("network");
    expect((error as Error).message).toBe(`gemini: could not reach ${gone.url} (ECONNREFUSED)`);
    expect((error as Error).message).not.toContain(gone.apiKey);
  });

  it("a connection closed mid-request → network, one request", async () => {
    server.queue({ status: 200, hangUp: true });
    const e = await embedder();
    const error = await settle(e.embedBatch(["hang up"]));
    expect(isEmbeddingError(error) && error.kind).toBe("network");
    expect(server.requests).toHaveLength(1);
  });
});

describe("AbortSignal", () => {
  it("a reason that is not an Error comes back unchanged (not wrapped by the SDK)", async () => {
    server.queue({ status: 200, json: { embeddings: [] }, delayMs: 5_000 });
    const e = await embedder();
    const controller = new AbortController();
    const pending = settle(e.embedBatch(["x"], controller.signal));
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort("stop");
    expect(await pending).toBe("stop");
  });

  it("leaves no listener on a long-lived signal after calls finish", async () => {
    const e = await embedder({ outputDimensionality: 128 });
    const controller = new AbortController();
    for (let i = 0; i < 15; i++) await e.embedBatch([`text ${i}`], controller.signal);
    server.queue({ status: 500, json: { error: { code: 500, message: "x", status: "INTERNAL" } } });
    await settle(e.embedBatch(["fails"], controller.signal));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(server.requests).toHaveLength(16);
  });
});
