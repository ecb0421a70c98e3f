// The Embedder and LanguageModel contracts' checks live in the kits (@engram/core/testing): this
// file runs them against the Gemini driver and the local wire server; embed.test.ts,
// failures.test.ts, transport.test.ts and chat-model.test.ts keep what is Gemini's own (request
// shapes, task types, Google's error bodies, RetryInfo, quotas, blocked prompts).
import {
  describeEmbedderConformance,
  describeLanguageModelConformance,
} from "@engram/core/testing";
import { geminiEmbedder, geminiLanguageModel } from "../src/index.js";
import { generateAnswer } from "./gemini-generate-wire.js";
import {
  apiKeyInvalid,
  type GeminiWireServer,
  internalError,
  perMinuteLimit,
  startGeminiWireServer,
  type WireReply,
} from "./gemini-wire-server.js";

/** Requests to one method (`batchEmbedContents`, `generateContent`). */
const count = (server: GeminiWireServer, method: string) => () =>
  server.requests.filter((r) => r.url.includes(`:${method}`)).length;

/** Queue `reply` for the next request. */
const queue =
  (server: GeminiWireServer, reply: WireReply | ((request: never) => WireReply)) => () =>
    server.queue(reply as WireReply);

/** The failures both kits inject, as the Gemini API sends them. */
function sharedFailures(server: GeminiWireServer, slow: WireReply) {
  return {
    rate_limit: queue(server, perMinuteLimit("7s")),
    auth: queue(server, apiKeyInvalid()),
    server: queue(server, internalError()),
    malformed: queue(server, {
      status: 200,
      headers: { "content-type": "text/html" },
      text: "<html><body>proxy login</body></html>",
    }),
    // Longer than any test may run; the server's close() clears the timer.
    slow: queue(server, { ...slow, delayMs: 120_000 }),
  };
}

describeEmbedderConformance("gemini", async () => {
  const server = await startGeminiWireServer();
  const options = { apiKey: server.apiKey, baseUrl: server.url };
  return {
    embedder: await geminiEmbedder(options),
    secrets: [server.apiKey],
    requests: count(server, "batchEmbedContents"),
    failNext: {
      ...sharedFailures(server, { status: 200, json: { embeddings: [] } }),
      // JSON has no NaN: what a broken server sends instead.
      nan_vector: queue(server, {
        status: 200,
        json: { embeddings: [{ values: [null, ...Array(3071).fill(0.01)] }] },
      }),
    },
    // timeoutMs outlasts the request's way to the server on a loaded machine (300 ms did not).
    shortTimeout: () => geminiEmbedder({ ...options, timeoutMs: 1500 }),
    close: () => server.close(),
  };
});

describeLanguageModelConformance("gemini generateContent", async () => {
  const server = await startGeminiWireServer();
  const options = { apiKey: server.apiKey, baseUrl: server.url };
  return {
    model: await geminiLanguageModel(options),
    secrets: [server.apiKey],
    requests: count(server, "generateContent"),
    failNext: {
      ...sharedFailures(server, { status: 200, json: {} }),
      not_json: queue(server, generateAnswer("Here you go: 用户偏好深色模式, worth keeping.")),
      schema_violation: queue(server, generateAnswer("{}")),
    },
    shortTimeout: () => geminiLanguageModel({ ...options, timeoutMs: 1500 }),
    close: () => server.close(),
  };
});
