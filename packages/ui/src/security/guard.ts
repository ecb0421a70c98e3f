import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { UiContext, UiEnv } from "../context.js";
import { describeError, UiRefusal } from "../errors.js";
import { scopeOf } from "../scope.js";
import { hostAllowed, sameOrigin } from "./hosts.js";
import { sameSecret } from "./secrets.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Every request passes, in this order:
 *
 * 1. `Host` must name this server (`localhost`, an IP literal, or `--host`) — DNS rebinding: 403.
 * 2. `Origin`, when sent, must be this server; `Sec-Fetch-Site: cross-site` on a write: 403.
 * 3. The token: `Authorization: Bearer`, `?token=` (a page load trades it for the session cookie
 *    and is redirected to the same URL without it), or the session cookie. None or wrong: 401.
 * 4. Writes (any other method than GET/HEAD/OPTIONS): `--read-only` → 403; with the cookie, the
 *    CSRF token (form field `_csrf` or `X-CSRF-Token`) and a same-origin `Origin` → else 403.
 */
export function guard(ctx: UiContext): MiddlewareHandler<UiEnv> {
  return async (c, next) => {
    const host = c.req.header("host");
    if (!host || !hostAllowed(host, ctx.bindHost, ctx.port)) {
      return refuse(
        c,
        new UiRefusal(
          403,
          "HOST_REFUSED",
          `Host "${host ?? ""}" is not this server`,
          "open the URL engram ui printed",
        ),
      );
    }
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    const write = !SAFE_METHODS.has(c.req.method);
    if (origin !== undefined && !sameOrigin(origin, host)) {
      return refuse(
        c,
        new UiRefusal(
          403,
          "ORIGIN_REFUSED",
          `requests from ${origin} are refused`,
          "use the page engram ui serves",
        ),
      );
    }
    if (write && site === "cross-site") {
      return refuse(
        c,
        new UiRefusal(
          403,
          "ORIGIN_REFUSED",
          "cross-site writes are refused",
          "use the page engram ui serves",
        ),
      );
    }

    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const queryToken = c.req.query("token");
    if (bearer !== undefined || queryToken !== undefined) {
      if (!sameSecret(bearer ?? queryToken, ctx.secrets.token)) return refuse(c, unauthorized());
      if (bearer === undefined && c.req.method === "GET" && !c.req.path.startsWith("/api/")) {
        // A page load with the printed URL: trade the token for the session cookie, drop it from the address bar.
        setCookie(c, ctx.cookieName, ctx.secrets.session, {
          httpOnly: true,
          sameSite: "Strict",
          path: "/",
        });
        const url = new URL(c.req.url);
        url.searchParams.delete("token");
        return c.redirect(`${url.pathname}${url.search}`, 303);
      }
      c.set("auth", "bearer");
    } else if (sameSecret(getCookie(c, ctx.cookieName), ctx.secrets.session)) {
      c.set("auth", "cookie");
    } else {
      return refuse(c, unauthorized());
    }

    if (write) {
      if (ctx.readOnly) {
        return refuse(
          c,
          new UiRefusal(
            403,
            "READ_ONLY",
            "this page was started with --read-only: nothing can be changed",
            "restart engram ui without --read-only",
          ),
        );
      }
      if (c.get("auth") === "cookie") {
        if (origin === undefined && site !== "same-origin") {
          return refuse(
            c,
            new UiRefusal(
              403,
              "ORIGIN_REFUSED",
              "a write must come from the page itself",
              "use the page's own forms",
            ),
          );
        }
        if (!sameSecret(await csrfOf(c), ctx.secrets.csrf)) {
          return refuse(
            c,
            new UiRefusal(
              403,
              "CSRF_REFUSED",
              "the form's CSRF token is missing or wrong",
              "reload the page and try again",
            ),
          );
        }
      }
    }
    c.set("scope", scopeOf(await scopeParam(c), ctx.defaultScope));
    await next();
  };
}

function unauthorized(): UiRefusal {
  return new UiRefusal(
    401,
    "TOKEN_REQUIRED",
    "this page needs the token engram ui printed",
    "open the full URL from its first line (…?token=…), or send Authorization: Bearer <token>",
  );
}

/** The CSRF token a write carries: header, else the form field (the body is parsed once and cached). */
async function csrfOf(c: Context<UiEnv>): Promise<string | undefined> {
  const header = c.req.header("x-csrf-token");
  if (header) return header;
  if (!isForm(c)) return undefined;
  return formField(await formBody(c), "_csrf");
}

async function scopeParam(c: Context<UiEnv>): Promise<string | undefined> {
  const q = c.req.query("scope");
  if (q !== undefined || c.req.method !== "POST" || !isForm(c)) return q;
  return formField(await formBody(c), "scope");
}

/**
 * The request's form fields, parsed once: every caller must use these same options, or Hono reads
 * the body a second time (and fails: the stream is consumed).
 */
export function formBody(c: Context): Promise<Record<string, string | File | (string | File)[]>> {
  return c.req.parseBody({ all: true });
}

function formField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : undefined;
}

function isForm(c: Context): boolean {
  const type = c.req.header("content-type") ?? "";
  return (
    type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data")
  );
}

/** Answer a refusal: JSON under /api/ (and for scripts), a small page otherwise. */
export function refuse(c: Context, error: unknown): Response {
  const { status, body } = describeError(error);
  if (c.req.path.startsWith("/api/") || !(c.req.header("accept") ?? "").includes("text/html")) {
    return c.json(body, status);
  }
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>engram · ${status}</title></head><body><h1>${status === 401 ? "Sign-in needed" : "Refused"}</h1><p>${escapeHtml(body.error.message)}</p>${body.error.hint ? `<p>${escapeHtml(body.error.hint)}</p>` : ""}</body></html>`,
    status,
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
