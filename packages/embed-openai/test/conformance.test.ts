// The Embedder and LanguageModel contracts' checks live in the kits (@engram/core/testing): this
// file runs them against the OpenAI driver and the local wire server; embedder.test.ts,
// errors.test.ts and chat-model.test.ts keep what is OpenAI's own (request shapes, headers, error
// bodies, Retry-After, the Batch API).
import {
  describeEmbedderConformance,
  describeLanguageModelConformance,
} from "@engram/core/testing";
import { openaiEmbedder, openaiLanguageModel } from "../src/index.js";
import { API_KEY } from "./helpers.js";
import { type ChatCompletionsBody, chatCompletionResult } from "./openai-chat-wire.js";
import {
  invalidApiKey,
  json,
  mangledEmbeddings,
  type OpenAIWireServer,
  type Responder,
  rateLimited,
  rawResponse,
  serverError,
  slowHeaders,
  startOpenAIWireServer,
  toBase64,
} from "./openai-wire-server.js";

/** Answer the next request to `route` with `responder`, once. */
const once = (server: OpenAIWireServer, route: string, responder: Responder) => () =>
  server.once(route, responder);

/** The failures both kits inject, as api.openai.com words them. */
function sharedFailures(server: OpenAIWireServer, route: string) {
  return {
    rate_limit: once(server, route, rateLimited({ retryAfterMs: "1250" })),
    auth: once(server, route, invalidApiKey(`${API_KEY}-revoked`)),
    server: once(server, route, serverError()),
    malformed: once(server, route, rawResponse(200, "text/html", "<html>proxy login</html>")),
    // Longer than any test may run; ended when the client gives up.
    slow: once(server, route, slowHeaders(120_000)),
  };
}

describeEmbedderConformance("openai", async () => {
  const server = await startOpenAIWireServer({ apiKey: API_KEY });
  const route = "POST /embeddings";
  const withNaN = Array.from({ length: 1536 }, (_, i) => (i === 7 ? Number.NaN : 0.5));
  return {
    embedder: await openaiEmbedder({ apiKey: API_KEY, baseUrl: server.baseUrl }),
    secrets: [API_KEY],
    requests: () => server.count(route),
    failNext: {
      ...sharedFailures(server, route),
      nan_vector: once(
        server,
        route,
        mangledEmbeddings((real) => ({
          ...real,
          data: real.data.map((d) => ({ ...d, embedding: toBase64(withNaN) })),
        })),
      ),
    },
    // timeoutMs outlasts the request's way to the server on a loaded machine (300 ms did not).
    shortTimeout: () =>
      openaiEmbedder({ apiKey: API_KEY, baseUrl: server.baseUrl, timeoutMs: 1500 }),
    close: () => server.close(),
  };
});

describeLanguageModelConformance("openai chat completions", async () => {
  const server = await startOpenAIWireServer({ apiKey: API_KEY });
  const route = "POST /chat/completions";
  /** A chat completion whose content is `content`, whatever was asked. */
  const answer =
    (content: string): Responder =>
    (req, res) => {
      const reply = chatCompletionResult(req.body as ChatCompletionsBody, {
        answer: () => content,
      });
      json(res, reply.status, reply.body);
    };
  return {
    model: await openaiLanguageModel({ apiKey: API_KEY, baseUrl: server.baseUrl }),
    secrets: [API_KEY],
    requests: () => server.count(route),
    failNext: {
      ...sharedFailures(server, route),
      not_json: once(server, route, answer("Sure! The note is worth keeping: 用户偏好深色模式")),
      schema_violation: once(server, route, answer("{}")),
    },
    shortTimeout: () =>
      openaiLanguageModel({ apiKey: API_KEY, baseUrl: server.baseUrl, timeoutMs: 1500 }),
    close: () => server.close(),
  };
});
