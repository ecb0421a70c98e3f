import type { TimelineEntry, TimelineLog, TimelinePage } from "../data/timeline.js";
import { renderMarkdown } from "../markdown.js";
import { cite, formatBytes, type Html, href, html, type PageContext, raw } from "./html.js";

/** The timeline: days newest first (today and yesterday on top), each log's entries rendered. */
export function timelineView(page: PageContext, timeline: TimelinePage): Html {
  if (timeline.days.length === 0) {
    return html`<h1>Timeline</h1><p class="empty">No daily logs yet. An agent's <code>engram add</code> or <code>memory_write</code> starts today's.</p>`;
  }
  return html`<h1>Timeline <small>${timeline.totalDays} days with a log</small></h1>
${timeline.days.map(
  (day) => html`<section class="day" id="d-${day.date}">
  <h2>${day.label ? html`<span class="day-label">${day.label}</span> ` : ""}${day.date}</h2>
  ${day.logs.map((log) => logView(page, log))}
</section>`,
)}
${
  timeline.nextBefore
    ? html`<p class="more"><a href="${href(page, "/timeline", { before: timeline.nextBefore })}">Older days →</a></p>`
    : ""
}`;
}

function logView(page: PageContext, log: TimelineLog): Html {
  const fileLink = href(page, "/file", { path: log.path });
  const head = html`<header class="log-head"><a href="${fileLink}">${log.path}</a>
    <span class="tier tier-${log.tier}">${log.tier}</span> <span class="muted">${formatBytes(log.size)}</span></header>`;
  if (log.hidden) {
    return html`<article class="log hidden-log">${head}<p class="muted">${
      log.hidden === "sensitive" ? "Marked sensitive" : "Personal memory"
    }: shown in the main scope only.</p></article>`;
  }
  return html`<article class="log">${head}${log.entries.map((e) => entryView(page, log.path, e))}</article>`;
}

function entryView(page: PageContext, path: string, entry: TimelineEntry): Html {
  const lines = entry.text.split("\n");
  // The heading is the entry's title; its body is rendered below it at its own line numbers.
  const body = entry.heading === null ? entry.text : lines.slice(1).join("\n");
  const offset = entry.heading === null ? entry.startLine - 1 : entry.startLine;
  const where = cite(path, entry.startLine, entry.endLine);
  return html`<div class="entry">
  <div class="entry-head">${entry.heading !== null ? html`<span class="time">${entry.heading}</span>` : ""}
    <a class="cite" href="${href(page, "/file", { path, lines: `${entry.startLine}-${entry.endLine}` }, "#hl")}">${where}</a></div>
  <div class="md">${raw(renderMarkdown(body, { path, lineOffset: offset, fileHref: (p) => href(page, "/file", { path: p }) }))}</div>
</div>`;
}
