import type { Context, Hono } from "hono";
import type { UiContext, UiEnv } from "../context.js";
import { applyApprovedMoves, undoLifecycle } from "../curation/lifecycle.js";
import { describeError, UiRefusal } from "../errors.js";
import { formBody } from "../security/guard.js";
import { errorBody, layout } from "../views/layout.js";
import { lineTarget } from "./api.js";

/**
 * The page's forms: each posts here (CSRF token, same origin, not read-only — see the guard),
 * calls the same curation function as the JSON API, and redirects back with the outcome.
 */
export function registerActions(app: Hono<UiEnv>, ctx: UiContext): void {
  const back = (c: Context<UiEnv>, path: string, query: Record<string, string | number>) => {
    const params = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    );
    if (c.get("scope") !== ctx.defaultScope) params.set("scope", c.get("scope"));
    return c.redirect(`${path}?${params}`, 303);
  };
  const fail = (c: Context<UiEnv>, error: unknown) => {
    const { status, body } = describeError(error);
    const page = {
      scope: c.get("scope"),
      defaultScope: ctx.defaultScope,
      readOnly: ctx.readOnly,
      csrf: ctx.secrets.csrf,
      path: "/curate",
      query: {},
    };
    return c.html(
      layout(
        page,
        { title: "Refused", assets: ctx.assets },
        errorBody(status, body.error.message, body.error.hint),
      ),
      status as 400,
    );
  };
  const form = async (c: Context<UiEnv>) => {
    if (c.get("scope") !== "main") {
      throw new UiRefusal(
        403,
        "MAIN_SCOPE_ONLY",
        "curation changes memory itself: main scope only",
        "switch to the main scope and try again",
      );
    }
    return formBody(c);
  };
  const str = (v: unknown): string => {
    const first = Array.isArray(v) ? v[0] : v;
    return typeof first === "string" ? first : "";
  };

  app.post("/actions/lifecycle/apply", async (c) => {
    try {
      const body = await form(c);
      const approve = ([] as unknown[])
        .concat(body.approve ?? [])
        .map(str)
        .filter(Boolean);
      const done = await applyApprovedMoves(ctx.memory, approve);
      ctx.events.changed(...done.result.paths);
      return back(c, "/curate", {
        notice: "applied",
        n: done.approved,
        rejected: done.rejected,
        id: done.result.applyId,
      });
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post("/actions/lifecycle/undo", async (c) => {
    try {
      await form(c);
      const result = await undoLifecycle(ctx.memory);
      ctx.events.changed(...result.paths);
      return back(c, "/curate", { notice: "undone", n: result.items.length, id: result.applyId });
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post("/actions/consolidation/apply", async (c) => {
    try {
      const body = await form(c);
      const approve = ([] as unknown[])
        .concat(body.approve ?? [])
        .map(str)
        .filter(Boolean);
      const done = await ctx.consolidation.applyApproved(ctx.memory, approve);
      ctx.events.changed(...done.paths);
      return back(c, "/curate", { notice: "consolidated", n: approve.length });
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post("/actions/consolidation/undo", async (c) => {
    try {
      await form(c);
      const done = await ctx.consolidation.undo(ctx.memory);
      ctx.events.changed(...done.paths);
      return back(c, "/curate", { notice: "unconsolidated" });
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post("/actions/forget", async (c) => {
    try {
      const body = await form(c);
      const target = lineTarget(body);
      const done = await ctx.consolidation.forget(ctx.memory, target, str(body.reason));
      ctx.events.changed(...done.paths);
      return back(c, "/file", { path: target.path, raw: 1, notice: "forgotten" });
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post("/actions/forget/undo", async (c) => {
    try {
      const body = await form(c);
      const done = await ctx.consolidation.undoForget(ctx.memory);
      ctx.events.changed(...done.paths);
      return back(c, "/file", { path: str(body.path), raw: 1, notice: "unforgotten" });
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post("/actions/update", async (c) => {
    try {
      const body = await form(c);
      const target = lineTarget(body);
      const done = await ctx.consolidation.update(
        ctx.memory,
        target,
        str(body.text),
        str(body.reason),
      );
      ctx.events.changed(...done.paths);
      return back(c, "/file", { path: target.path, raw: 1, notice: "updated" });
    } catch (error) {
      return fail(c, error);
    }
  });

  app.post("/actions/update/undo", async (c) => {
    try {
      const body = await form(c);
      const done = await ctx.consolidation.undoUpdate(ctx.memory);
      ctx.events.changed(...done.paths);
      return back(c, "/file", { path: str(body.path), raw: 1, notice: "unforgotten" });
    } catch (error) {
      return fail(c, error);
    }
  });
}
