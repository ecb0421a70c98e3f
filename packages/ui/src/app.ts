import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { secureHeaders } from "hono/secure-headers";
import type { Assets } from "./assets.js";
import type { UiContext, UiEnv } from "./context.js";
import { UiRefusal } from "./errors.js";
import { registerActions } from "./routes/actions.js";
import { registerApi } from "./routes/api.js";
import { registerPages } from "./routes/pages.js";
import { guard, refuse } from "./security/guard.js";

/** Largest request body accepted (forms and JSON; memory text edits are far smaller). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The page server's routes: assets (public, content-hashed), then the guard (host, origin, token,
 * read-only, CSRF) in front of every page, form action and `/api/` route. `streams` collects the
 * open event streams so that closing the server can end them.
 */
export function createApp(ctx: UiContext, assets: Assets, streams: Set<() => void>): Hono<UiEnv> {
  const app = new Hono<UiEnv>();
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      // Not no-referrer: under it, browsers send `Origin: null` with the page's own form posts,
      // which the origin check refuses. same-origin sends nothing to other sites.
      referrerPolicy: "same-origin",
      // Plain HTTP on this machine: HSTS would only confuse other local servers.
      strictTransportSecurity: false,
      crossOriginResourcePolicy: "same-origin",
    }),
  );
  app.use(async (c, next) => {
    await next();
    if (!c.res.headers.has("cache-control")) c.res.headers.set("cache-control", "no-store");
  });
  // Assets carry no memory (a stylesheet and a script): served before the token check, cached for good.
  app.get("/assets/:name", (c) => {
    const asset = assets.byUrl.get(c.req.path);
    if (!asset) return c.notFound();
    return c.body(asset.body, 200, {
      "content-type": asset.type,
      "cache-control": "public, max-age=31536000, immutable",
    });
  });
  // Before the guard: it may read a form's CSRF field, and the limit must wrap the body first.
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        refuse(
          c,
          new UiRefusal(413, "BODY_TOO_LARGE", "the request body is over 1 MB", "send less"),
        ),
    }),
  );
  app.use(guard(ctx));
  registerPages(app, ctx);
  registerActions(app, ctx);
  registerApi(app, ctx, streams);
  app.notFound((c) =>
    refuse(
      c,
      new UiRefusal(
        404,
        "NOT_FOUND",
        `${c.req.path} is not a page of engram ui`,
        "start from /timeline",
      ),
    ),
  );
  app.onError((error, c) => refuse(c, error));
  return app;
}
