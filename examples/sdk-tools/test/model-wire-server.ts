import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server speaking the wire formats of OpenAI Chat Completions
 * (`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`), non-streaming, with a
 * scripted "model" behind both: given the tool results so far it asks for the next tool call or
 * answers. It stands in for the remote APIs only; the SDKs and their tool loops are the real ones.
 */

/** A JSON request or message body of either wire format, read field by field. */
// biome-ignore lint/suspicious/noExplicitAny: the two APIs' bodies are checked by the SDKs, not here
type Body = Record<string, any>;

/** A tool result the model was handed back. */
export interface SeenResult {
  text: string;
  isError: boolean;
}

/** What the scripted model does next: call a tool, or answer. */
export type ModelTurn = { tool: string; input: Record<string, unknown> } | { answer: string };

/** The script: the next turn, from the user's question and the results so far. */
export type ModelScript = (question: string, results: SeenResult[]) => ModelTurn;

/** One request as received (path and parsed body). */
export interface WireRequest {
  path: string;
  body: Body;
}

export async function startModelServer(script: ModelScript) {
  const requests: WireRequest[] = [];
  // Anthropic message threads: the conversation up to each message, so a request that continues a
  // thread (`thread: { type: "continue", previous_message_id }`) sends only its new messages.
  const threads = new Map<string, AnthropicMessage[]>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { type: "api_error", message: error.message } }));
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse(await readBody(req)) as Body;
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    requests.push({ path, body });
    const reply = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    if (path === "/v1/chat/completions") return reply(200, openAiReply(body, script));
    if (path === "/v1/messages") {
      const previous =
        body.thread?.type === "continue" ? threads.get(body.thread.previous_message_id) : [];
      if (!previous) {
        return reply(404, {
          type: "error",
          error: { type: "not_found_error", message: "unknown thread" },
        });
      }
      const conversation = [...previous, ...(body.messages as AnthropicMessage[])];
      const message = anthropicReply(body, conversation, script, threads.size);
      threads.set(message.id, [...conversation, { role: "assistant", content: message.content }]);
      return reply(200, message);
    }
    reply(404, { error: { type: "not_found_error", message: `no route ${path}` } });
  };
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function openAiReply(body: Body, script: ModelScript) {
  const messages = body.messages as Array<Body>;
  const question = String(messages.find((m) => m.role === "user")?.content ?? "");
  const results = messages
    .filter((m) => m.role === "tool")
    .map((m) => ({ text: String(m.content), isError: String(m.content).startsWith('{"error"') }));
  const turn = script(question, results);
  const n = results.length;
  const message =
    "tool" in turn
      ? {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: `call_${n}`,
              type: "function",
              function: { name: turn.tool, arguments: JSON.stringify(turn.input) },
            },
          ],
        }
      : { role: "assistant", content: turn.answer, refusal: null };
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: body.model,
    choices: [
      { index: 0, message, logprobs: null, finish_reason: "tool" in turn ? "tool_calls" : "stop" },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

type AnthropicMessage = { role: string; content: string | Array<Body> };

function anthropicReply(
  body: Body,
  messages: AnthropicMessage[],
  script: ModelScript,
  serial: number,
) {
  const first = messages[0]?.content;
  const question =
    typeof first === "string" ? first : String(first?.find((b) => b.type === "text")?.text ?? "");
  const results = messages
    .flatMap((m) => (typeof m.content === "string" ? [] : m.content))
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      text:
        typeof b.content === "string"
          ? b.content
          : (b.content ?? []).map((c: { text?: string }) => c.text ?? "").join(""),
      isError: b.is_error === true,
    }));
  const turn = script(question, results);
  const n = results.length;
  return {
    id: `msg_${serial}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content:
      "tool" in turn
        ? [{ type: "tool_use", id: `toolu_${n}`, name: turn.tool, input: turn.input }]
        : [{ type: "text", text: turn.answer }],
    stop_reason: "tool" in turn ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
}
