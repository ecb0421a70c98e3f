import type { Context, Hono } from "hono";
import type { UiContext, UiEnv } from "../context.js";
import { describeError, UiRefusal } from "../errors.js";
import { formBody } from "../security/guard.js";
import { errorBody, layout } from "../views/layout.js";
import { WRITES } from "./writes.js";

/**
 * The page's forms: each posts to `/actions/<name>` (the guard has checked the CSRF token, the
 * origin and --read-only), runs the same write as `POST /api/<name>`, and redirects back with
 * the outcome — or shows why it was refused.
 */
export function registerActions(app: Hono<UiEnv>, ctx: UiContext): void {
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
  for (const write of WRITES) {
    app.post(`/actions/${write.name}`, async (c) => {
      try {
        if (c.get("scope") !== "main") {
          throw new UiRefusal(
            403,
            "MAIN_SCOPE_ONLY",
            "curation changes memory itself: main scope only",
            "switch to the main scope and try again",
          );
        }
        const done = await write.run(ctx, await formBody(c));
        ctx.events.changed(...done.paths);
        const params = new URLSearchParams(
          Object.entries(done.back.query).map(([k, v]): [string, string] => [k, String(v)]),
        );
        if (c.get("scope") !== ctx.defaultScope) params.set("scope", c.get("scope"));
        return c.redirect(`${done.back.path}?${params}`, 303);
      } catch (error) {
        return fail(c, error);
      }
    });
  }
}
