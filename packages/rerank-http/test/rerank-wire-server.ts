import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server speaking the rerank wire formats: Cohere's `POST /v1/rerank`
 * (`{ model, query, documents, top_n? }` → `{ id, results: [{ index, relevance_score }], meta }`,
 * best first, as Cohere, Jina, vLLM and llama.cpp's server answer), Voyage's variant (`data` for
 * `results`, at `/voyage/v1/rerank`) and TEI's `POST /rerank` (`{ query, texts }` →
 * `[{ index, score }]`). Its "model" scores a document by the share of the query's words it holds,
 * so tests know the expected order. Every request is recorded.
 */
export interface RerankServer {
  url: string;
  requests: Array<{ path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> }>;
  /**
   * Answer the next request this way instead, once (queued in order): a status and body, a body
   * as raw text, or a stall of `stallMs` (ended early when the client goes away).
   */
  failNext: (plan: ReplyPlan) => void;
  close: () => Promise<void>;
}

/** How to answer one request instead of the emulator. */
export interface ReplyPlan {
  status?: number;
  body?: unknown;
  /** Sent as is, with `content-type: text/html`. */
  text?: string;
  stallMs?: number;
}

export function overlapScore(query: string, document: string): number {
  const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const q = words(query);
  const d = words(document);
  let shared = 0;
  for (const w of q) if (d.has(w)) shared++;
  return q.size ? shared / q.size : 0;
}

/** Wait `ms`, or less if the client goes away first (so no timer outlives a test). */
function pause(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    res.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function startRerankServer(): Promise<RerankServer> {
  const requests: RerankServer["requests"] = [];
  const plans: ReplyPlan[] = [];
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push({ path, headers: req.headers, body });
    const plan = plans.shift();
    if (plan?.stallMs) await pause(res, plan.stallMs);
    if (res.destroyed) return;
    if (plan?.text !== undefined) {
      res.writeHead(plan.status ?? 200, { "content-type": "text/html" });
      return res.end(plan.text);
    }
    if (plan?.status) return send(res, plan.status, plan.body ?? {});
    if (plan?.body !== undefined) return send(res, 200, plan.body);
    const query = String(body.query ?? "");
    if (path === "/rerank") {
      const texts = (body.texts ?? []) as string[];
      const out = texts.map((t, index) => ({ index, score: overlapScore(query, t) }));
      return send(
        res,
        200,
        out.sort((a, b) => b.score - a.score),
      );
    }
    if (path === "/v1/rerank" || path === "/voyage/v1/rerank") {
      const documents = body.documents as unknown;
      if (!Array.isArray(documents) || typeof body.query !== "string") {
        return send(res, 400, { message: "invalid request: query and documents are required" });
      }
      const ranked = documents
        .map((d, index) => ({ index, relevance_score: overlapScore(query, String(d)) }))
        .sort((a, b) => b.relevance_score - a.relevance_score);
      return path === "/v1/rerank"
        ? send(res, 200, {
            id: "r-1",
            results: ranked,
            meta: { billed_units: { search_units: 1 } },
          })
        : send(res, 200, {
            object: "list",
            data: ranked,
            model: body.model,
            usage: { total_tokens: 10 },
          });
    }
    send(res, 404, { message: `no route ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (plan) => {
      plans.push(plan);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
