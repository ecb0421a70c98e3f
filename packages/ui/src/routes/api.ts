import { EngramError, promotionCandidates } from "@engram/core";
import { readAudit } from "@engram/core/internal";
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { UiContext, UiEnv } from "../context.js";
import { showConsolidation } from "../curation/consolidation.js";
import { showLifecyclePlan } from "../curation/lifecycle.js";
import { readFileView } from "../data/files.js";
import { runSearch } from "../data/search.js";
import { buildTiers, listFolder } from "../data/tiers.js";
import { buildTimeline } from "../data/timeline.js";
import { describeError, UiRefusal } from "../errors.js";
import type { LiveEvent } from "../events.js";
import { WRITES } from "./writes.js";

/** How often an idle event stream says it is alive (proxies and browsers drop silent ones). */
const KEEPALIVE_MS = 15_000;

/**
 * The JSON API under `/api/` the page's scripts and anyone's scripts use, with the same token
 * (`Authorization: Bearer <token>`). Reads take `?scope=main|group`; curation (plans, apply,
 * undo, forget, update) answers in the main scope only.
 */
export function registerApi(app: Hono<UiEnv>, ctx: UiContext, streams: Set<() => void>): void {
  const run = (handler: (c: Context<UiEnv>) => Promise<unknown>) => async (c: Context<UiEnv>) => {
    try {
      return c.json((await handler(c)) as object);
    } catch (error) {
      const { status, body } = describeError(error);
      return c.json(body, status);
    }
  };
  const main = (c: Context<UiEnv>) => {
    if (c.get("scope") !== "main") {
      throw new UiRefusal(
        403,
        "MAIN_SCOPE_ONLY",
        "curation shows and changes memory itself: main scope only",
        "add scope=main",
      );
    }
  };
  const changed = (paths: readonly string[]) => ctx.events.changed(...paths);

  app.get(
    "/api/status",
    run(() => ctx.memory.status()),
  );

  app.get(
    "/api/timeline",
    run((c) => {
      const before = c.req.query("before");
      const days = c.req.query("days");
      return buildTimeline(ctx.memory, ctx.listing, {
        scope: c.get("scope"),
        ...(before ? { before } : {}),
        ...(days && /^\d{1,3}$/.test(days) && Number(days) > 0 ? { days: Number(days) } : {}),
      });
    }),
  );

  app.get(
    "/api/tiers",
    run(async (c) => {
      const dir = c.req.query("dir");
      return dir ? listFolder(ctx.memory, ctx.listing, dir) : buildTiers(ctx.memory, ctx.listing);
    }),
  );

  app.get(
    "/api/file",
    run(async (c) => {
      const view = await readFileView(ctx.memory, c.req.query("path") ?? "", c.get("scope"));
      const from = optionalInt("from", c.req.query("from")) ?? 1;
      const count = optionalInt("lines", c.req.query("lines"));
      const all = view.text === "" ? [] : view.text.split("\n");
      const end = count === undefined ? all.length : Math.min(all.length, from + count - 1);
      return {
        path: view.path,
        tier: view.tier,
        scope: c.get("scope"),
        startLine: from,
        endLine: from > all.length ? from - 1 : end,
        totalLines: view.totalLines,
        text: all.slice(from - 1, end).join("\n"),
      };
    }),
  );

  app.get(
    "/api/search",
    run((c) =>
      runSearch(
        ctx.memory,
        {
          q: c.req.query("q"),
          mode: c.req.query("mode"),
          tier: c.req.queries("tier")?.join(","),
          source: c.req.queries("source")?.join(","),
          k: c.req.query("k"),
          fusion: c.req.query("fusion"),
        },
        c.get("scope"),
      ),
    ),
  );

  app.get(
    "/api/lifecycle/plan",
    run(async (c) => {
      main(c);
      return showLifecyclePlan(ctx.memory);
    }),
  );
  app.get(
    "/api/consolidation/plan",
    run(async (c) => {
      main(c);
      return showConsolidation(ctx.memory);
    }),
  );
  for (const write of WRITES) {
    app.post(
      `/api/${write.name}`,
      run(async (c) => {
        main(c);
        const done = await write.run(ctx, await jsonBody(c));
        changed(done.paths);
        return done.result;
      }),
    );
  }

  app.get(
    "/api/audit",
    run(async (c) => {
      main(c);
      return readAudit(ctx.memory.workspace);
    }),
  );
  app.get(
    "/api/candidates",
    run(async (c) => {
      main(c);
      return promotionCandidates(ctx.memory, { limit: 20 });
    }),
  );

  // Live updates: one event per burst of file changes, one per sync of the watcher.
  app.get("/api/events", (c) =>
    streamSSE(c, async (stream) => {
      let wake: (() => void) | undefined;
      const queue: LiveEvent[] = [];
      const unsubscribe = ctx.events.subscribe((event) => {
        queue.push(event);
        wake?.();
      });
      const stop = () => {
        closed = true;
        wake?.();
      };
      let closed = false;
      streams.add(stop);
      stream.onAbort(stop);
      try {
        await stream.writeSSE({ event: "ready", data: "{}" });
        while (!closed) {
          const timer = new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, KEEPALIVE_MS).unref();
          });
          await timer;
          wake = undefined;
          if (closed) break;
          if (queue.length === 0) {
            await stream.write(": keepalive\n\n");
            continue;
          }
          for (const event of queue.splice(0)) {
            await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
          }
        }
      } finally {
        unsubscribe();
        streams.delete(stop);
      }
    }),
  );
}

/** The request's JSON object (an empty body is `{}`: undo needs nothing). */
async function jsonBody(c: Context<UiEnv>): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    const body = JSON.parse(text);
    if (body && typeof body === "object" && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new EngramError("INVALID_ARGUMENT", "the request body must be a JSON object", {
    hint: 'send Content-Type: application/json and a body such as { "approve": ["…"] }',
  });
}

function optionalInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `${name} must be a whole number of at least 1, got "${value}"`,
      {
        hint: `pass ${name} as 1, 2, 3, …`,
      },
    );
  }
  return n;
}
