import { type Html, href, html, type PageContext } from "./html.js";

/** The pages in the navigation, in order. */
const NAV = [
  ["/timeline", "Timeline"],
  ["/tiers", "Tiers"],
  ["/search", "Search"],
  ["/curate", "Curate"],
  ["/health", "Health"],
] as const;

/** Options of {@link layout}. */
export interface LayoutOptions {
  title: string;
  /** `swap`: live updates replace the page's main part; `notice`: they only say so (forms). */
  live?: "swap" | "notice";
  /** Asset URLs (content-hashed). */
  assets: { css: string; js: string };
}

/** The page around every view: navigation, the scope switch, read-only badge, live indicator. */
export function layout(page: PageContext, options: LayoutOptions, body: Html): Html {
  const otherScope = page.scope === "main" ? "group" : "main";
  const switchQuery = new URLSearchParams(page.query);
  switchQuery.delete("scope");
  if (otherScope !== page.defaultScope) switchQuery.set("scope", otherScope);
  const qs = switchQuery.toString();
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${options.title} · engram</title>
<link rel="stylesheet" href="${options.assets.css}" />
<script src="${options.assets.js}" defer></script>
</head>
<body data-scope="${page.scope}" data-live="${options.live ?? "swap"}">
<header class="top">
  <a class="brand" href="${href(page, "/timeline")}">engram</a>
  <nav>
    ${NAV.map(
      ([path, label]) =>
        html`<a href="${href(page, path)}"${page.path === path ? html` aria-current="page"` : ""}>${label}</a>`,
    )}
  </nav>
  <div class="status">
    ${page.readOnly ? html`<span class="badge" title="started with --read-only: nothing can be changed from this page">read-only</span>` : ""}
    <a class="scope scope-${page.scope}" href="${page.path}${qs ? `?${qs}` : ""}" title="${
      page.scope === "main"
        ? "Main scope: personal memory and private spans are shown. Click to hide them."
        : "Group scope: personal memory and private spans are hidden. Click to show them."
    }">${page.scope === "main" ? "main scope: private shown" : "group scope: private hidden"}</a>
    <span class="live" id="live" title="live updates">●</span>
  </div>
</header>
<div id="notice" class="notice" hidden></div>
<main id="main">
${body}
</main>
</body>
</html>`;
}

/** A page saying what went wrong, with the fix. */
export function errorBody(status: number, message: string, hint?: string): Html {
  return html`<section class="error"><h1>${status === 401 ? "Sign-in needed" : "Refused"}</h1>
<p>${message}</p>${hint ? html`<p class="hint">${hint}</p>` : ""}</section>`;
}
