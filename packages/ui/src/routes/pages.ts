import { promotionCandidates } from "@engram/core";
import { readAudit } from "@engram/core/internal";
import type { Context, Hono } from "hono";
import type { UiContext, UiEnv } from "../context.js";
import { showConsolidation } from "../curation/consolidation.js";
import { showLifecyclePlan } from "../curation/lifecycle.js";
import { readBench } from "../data/bench.js";
import { readFileView } from "../data/files.js";
import { runSearch, type SearchParams } from "../data/search.js";
import { buildTiers, listFolder } from "../data/tiers.js";
import { buildTimeline } from "../data/timeline.js";
import { describeError } from "../errors.js";
import { type CurateData, curateNeedsMainScope, curateView } from "../views/curate.js";
import { fileView } from "../views/file.js";
import { healthView } from "../views/health.js";
import type { Html, PageContext } from "../views/html.js";
import { errorBody, type LayoutOptions, layout } from "../views/layout.js";
import { searchView } from "../views/search.js";
import { tiersView } from "../views/tiers.js";
import { timelineView } from "../views/timeline.js";

/** The HTML pages: timeline, tiers, file, search, curate, health. */
export function registerPages(app: Hono<UiEnv>, ctx: UiContext): void {
  const page = (c: Context<UiEnv>): PageContext => ({
    scope: c.get("scope"),
    defaultScope: ctx.defaultScope,
    readOnly: ctx.readOnly,
    csrf: ctx.secrets.csrf,
    path: c.req.path,
    query: c.req.query(),
  });
  const send = (
    c: Context<UiEnv>,
    title: string,
    body: Html,
    options: Partial<LayoutOptions> = {},
    status = 200,
  ) => c.html(layout(page(c), { title, assets: ctx.assets, ...options }, body), status as 200);
  const fail = (c: Context<UiEnv>, title: string, error: unknown) => {
    const { status, body } = describeError(error);
    return send(c, title, errorBody(status, body.error.message, body.error.hint), {}, status);
  };

  app.get("/", (c) =>
    c.redirect(`/timeline${c.req.query("scope") ? `?scope=${c.get("scope")}` : ""}`, 303),
  );

  app.get("/timeline", async (c) => {
    try {
      const before = c.req.query("before");
      const timeline = await buildTimeline(ctx.memory, ctx.listing, {
        scope: c.get("scope"),
        ...(before && /^\d{4}-\d{2}-\d{2}$/.test(before) ? { before } : {}),
      });
      return send(c, "Timeline", timelineView(page(c), timeline));
    } catch (error) {
      return fail(c, "Timeline", error);
    }
  });

  app.get("/tiers", async (c) => {
    try {
      const dir = c.req.query("dir");
      const [tiers, folder] = await Promise.all([
        buildTiers(ctx.memory, ctx.listing),
        dir ? listFolder(ctx.memory, ctx.listing, dir) : null,
      ]);
      return send(c, "Tiers", tiersView(page(c), tiers, folder));
    } catch (error) {
      return fail(c, "Tiers", error);
    }
  });

  app.get("/file", async (c) => {
    try {
      const path = c.req.query("path") ?? "";
      const file = await readFileView(ctx.memory, path, c.get("scope"));
      const lines = parseLines(c.req.query("lines"), file.totalLines);
      const curate = c.get("scope") === "main" && !ctx.readOnly && file.tier === "long";
      const notice = c.req.query("notice");
      return send(
        c,
        file.path,
        fileView(page(c), file, {
          ...(lines ? { lines } : {}),
          ...(notice === "forgotten" ||
          notice === "unforgotten" ||
          notice === "updated" ||
          notice === "unupdated"
            ? { notice }
            : {}),
          rawView: c.req.query("raw") === "1",
          edit: c.req.query("edit") === "1",
          curate,
        }),
        // A page with forget/edit forms only says that memory changed: swapping it in place
        // would replace a form the person is filling in.
        { live: curate ? "notice" : "swap" },
      );
    } catch (error) {
      return fail(c, "File", error);
    }
  });

  app.get("/search", async (c) => {
    const params: SearchParams = {
      q: c.req.query("q"),
      mode: c.req.query("mode"),
      tier: c.req.queries("tier")?.join(","),
      source: c.req.queries("source")?.join(","),
      k: c.req.query("k"),
    };
    if (!params.q?.trim()) return send(c, "Search", searchView(page(c), params, null, null));
    try {
      const response = await runSearch(ctx.memory, params, c.get("scope"));
      // Live changes only say so here: refreshing would search again, and every search counts
      // as a recall (promotion candidates, the recall guard).
      return send(c, `Search: ${params.q}`, searchView(page(c), params, response, null), {
        live: "notice",
      });
    } catch (error) {
      const { status, body } = describeError(error);
      return send(c, "Search", searchView(page(c), params, null, body.error.message), {}, status);
    }
  });

  app.get("/curate", async (c) => {
    if (c.get("scope") !== "main") return send(c, "Curate", curateNeedsMainScope(page(c)));
    try {
      const [lifecycle, consolidation, candidates, audit] = await Promise.all([
        showLifecyclePlan(ctx.memory),
        consolidationState(ctx),
        promotionCandidates(ctx.memory, { limit: 10 }),
        readAudit(ctx.memory.workspace),
      ]);
      const data: CurateData = { lifecycle, consolidation, candidates, audit, notice: noticeOf(c) };
      return send(c, "Curate", curateView(page(c), data), { live: "notice" });
    } catch (error) {
      return fail(c, "Curate", error);
    }
  });

  app.get("/health", async (c) => {
    try {
      const [status, bench] = await Promise.all([ctx.memory.status(), readBench(ctx.benchDir)]);
      return send(c, "Health", healthView(page(c), status, bench));
    } catch (error) {
      return fail(c, "Health", error);
    }
  });
}

async function consolidationState(ctx: UiContext): Promise<CurateData["consolidation"]> {
  try {
    const plan = await showConsolidation(ctx.memory);
    return plan ? { plan } : { unplanned: true };
  } catch (error) {
    return { error: describeError(error).body.error.message };
  }
}

/** `12-14` → { from: 12, to: 14 } within the file; anything else → undefined. */
export function parseLines(
  value: string | undefined,
  total: number,
): { from: number; to: number } | undefined {
  const m = /^(\d+)(?:-(\d+))?$/.exec(value ?? "");
  if (!m) return undefined;
  const from = Number(m[1]);
  const to = Number(m[2] ?? m[1]);
  if (from < 1 || to < from) return undefined;
  return { from, to: Math.min(to, Math.max(total, from)) };
}

/** The outcome an action redirected here with (`?notice=…`), in words. */
function noticeOf(c: Context<UiEnv>): string | null {
  const q = c.req.query();
  switch (q.notice) {
    case "applied":
      return `Applied ${q.n ?? "?"} approved move(s); ${q.rejected ?? "0"} rejected stay as they are (apply ${q.id ?? ""}).`;
    case "undone":
      return `Undid apply ${q.id ?? ""}: ${q.n ?? "?"} move(s) reversed.`;
    case "nothing":
      return "Nothing to do.";
    case "planned":
      return "Planned a consolidation pass: review its operations below.";
    case "consolidated":
      return `Applied ${q.n ?? "?"} approved operation(s)${
        Number(q.rejected) > 0
          ? `; ${q.rejected} rejected, listed as not approved in the pass's report`
          : ""
      } (pass ${q.id ?? ""}).`;
    case "unconsolidated":
      return `Undid the last consolidation pass (${q.id ?? ""}): its files are as they were.`;
    case "forgotten":
      return "Forgotten: the lines are in the archive.";
    case "unforgotten":
      return "Brought back what the last forget removed.";
    case "updated":
      return "Saved the edit; the old text is in the archive.";
    default:
      return null;
  }
}
