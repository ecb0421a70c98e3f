import { html as honoHtml, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** Escaped HTML (a fragment or a page). */
export type Html = HtmlEscapedString;

/**
 * Hono's `html` template (every interpolated string is escaped; arrays are joined; `raw()` and
 * other `html` fragments pass through), narrowed to the synchronous case: views never
 * interpolate promises.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return honoHtml(strings, ...values) as Html;
}

export { raw };

/** What every view needs to know about the request it answers. */
export interface PageContext {
  /** The scope shown: `main` shows personal and private memory, `group` hides it. */
  scope: "main" | "group";
  /** The server's default scope (links leave `scope` out when it is the default). */
  defaultScope: "main" | "group";
  /** True when the server refuses writes: every write control is left out. */
  readOnly: boolean;
  /** The CSRF token forms post back. */
  csrf: string;
  /** The page's path, for the scope switch and the navigation. */
  path: string;
  /** The page's query, for the scope switch. */
  query: Record<string, string>;
}

/** A page URL with its query (empty values left out), carrying the scope when it is not the default. */
export function href(
  page: PageContext,
  path: string,
  query: Record<string, string | number | undefined> = {},
  hash = "",
): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== "") params.set(k, String(v));
  }
  if (page.scope !== page.defaultScope) params.set("scope", page.scope);
  const qs = params.toString();
  return `${path}${qs ? `?${qs}` : ""}${hash}`;
}

/** The hidden field every form posts: the CSRF token, and the scope it was shown in. */
export function formFields(page: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${page.csrf}" /><input type="hidden" name="scope" value="${page.scope}" />`;
}

/** `12.3 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** `3 min ago`, `5 days ago`. */
export function formatAge(ms: number | null, now = Date.now()): string {
  if (ms === null) return "—";
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  const d = Math.round(h / 24);
  return d < 730 ? `${d} days ago` : `${Math.round(d / 365)} years ago`;
}

/** `path:12-14` (or `path:12`). */
export function cite(path: string, startLine: number, endLine: number): string {
  return `${path}:${startLine === endLine ? startLine : `${startLine}-${endLine}`}`;
}
