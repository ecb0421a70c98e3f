import type { CandidatesResult } from "@engram/core";
import type { AuditEntry } from "@engram/core/internal";
import type { ShownConsolidation } from "../curation/consolidation.js";
import type { ShownPlan } from "../curation/lifecycle.js";
import { cite, formFields, type Html, href, html, type PageContext } from "./html.js";

/** Everything the curate page shows. */
export interface CurateData {
  lifecycle: ShownPlan;
  /** The consolidation plan, or why there is none. */
  consolidation: { plan: ShownConsolidation } | { unplanned: true } | { error: string };
  candidates: CandidatesResult;
  audit: AuditEntry[];
  /** The outcome of the action that led here. */
  notice: string | null;
}

/** The curate page: the lifecycle and consolidation plans to approve move by move, undo, audit. */
export function curateView(page: PageContext, data: CurateData): Html {
  return html`<h1>Curate</h1>
${data.notice ? html`<p class="flash" role="status">${data.notice}</p>` : ""}
${lifecycleSection(page, data.lifecycle)}
${consolidationSection(page, data.consolidation)}
${candidatesSection(page, data.candidates)}
${auditSection(data.audit)}`;
}

/** Shown instead of the curate page outside the main scope. */
export function curateNeedsMainScope(page: PageContext): Html {
  const main = { ...page, scope: "main" as const };
  return html`<h1>Curate</h1>
<p class="notice-line">Curation shows and changes memory itself, private parts included: it is available in the main scope only.</p>
<p><a class="button" href="${href(main, "/curate")}">Switch to the main scope</a></p>`;
}

function lifecycleSection(page: PageContext, plan: ShownPlan): Html {
  const writable = !page.readOnly;
  return html`<section class="plan" id="lifecycle">
<h2>Lifecycle plan <small>${plan.moves.length} moves · ${plan.steps} journal steps</small></h2>
<p class="muted">Moves memory between tiers by the rules in <code>lifecycle.rules</code> (the same plan as <code>engram lifecycle plan</code>). Approve the moves to carry out; the others stay as they are and are planned again next time.</p>
${
  plan.moves.length === 0
    ? html`<p class="empty">Nothing to do: no rule matches now.</p>`
    : html`${writable ? html`<form method="post" action="/actions/lifecycle/apply" class="plan-form">${formFields(page)}` : html`<div class="plan-form">`}
  ${writable ? html`<p class="plan-tools"><button type="button" data-select="all">approve all</button> <button type="button" data-select="none">reject all</button> <span class="muted" data-count></span></p>` : ""}
  <ul class="moves">
  ${plan.moves.map(
    (m) => html`<li class="move" data-move="${m.id}">
    ${
      writable
        ? html`<label class="approve"><input type="checkbox" name="approve" value="${m.id}" /> approve</label>`
        : ""
    }
    <div class="move-body">
      <div><span class="action action-${m.action}">${m.action}</span> <code>${m.from}</code> → <code>${m.to}</code>${
        m.collision === "appended"
          ? html` <span class="muted">(appended to the existing archive)</span>`
          : m.collision === "suffixed"
            ? html` <span class="muted">(name taken: suffixed)</span>`
            : ""
      }</div>
      <div class="muted">rule <strong>${m.rule}</strong>: ${m.reason}</div>
      ${(m.collected ?? []).map(
        (c) =>
          html`<div class="collected">candidate (${c.heading}): ${c.text.split("\n")[0]}</div>`,
      )}
    </div>
  </li>`,
  )}
  </ul>
  ${writable ? html`<button type="submit" class="primary">Apply approved moves</button></form>` : html`</div>`}`
}
${plan.skipped.map((s) => html`<p class="muted">skipped ${s.path} (rule ${s.rule}): ${s.reason}</p>`)}
${
  writable
    ? html`<form method="post" action="/actions/lifecycle/undo" class="inline" data-confirm="Undo the last lifecycle apply? The previous files are restored exactly.">
  ${formFields(page)}<button type="submit">Undo the last apply</button></form>`
    : ""
}
</section>`;
}

function consolidationSection(page: PageContext, state: CurateData["consolidation"]): Html {
  if ("unplanned" in state) {
    return html`<section class="plan" id="consolidation"><h2>Consolidation plan</h2>
<p class="muted">A pass reads the notes since the last one and proposes ADD / UPDATE / SUPERSEDE / MERGE operations for long-term memory. With a language model configured, planning spends tokens, so it runs when asked.</p>
${
  page.readOnly
    ? ""
    : html`<form method="post" action="/actions/consolidation/plan" class="inline">${formFields(page)}<button type="submit" class="primary">Plan a consolidation pass</button></form>`
}</section>`;
  }
  if ("error" in state) {
    return html`<section class="plan" id="consolidation"><h2>Consolidation plan</h2>
<p class="error-line">${state.error}</p></section>`;
  }
  const { plan } = state;
  const writable = !page.readOnly;
  return html`<section class="plan" id="consolidation">
<h2>Consolidation plan <small>${plan.operations.length} operations · ${plan.mode}</small></h2>
${plan.guardFailures.length ? html`<p class="error-line">The recall guard refuses this plan: ${plan.guardFailures.join("; ")}</p>` : ""}
${
  plan.operations.length === 0
    ? html`<p class="empty">Nothing to do: the pass proposes no change.</p>`
    : html`${writable ? html`<form method="post" action="/actions/consolidation/apply" class="plan-form">${formFields(page)}` : html`<div class="plan-form">`}
  ${writable ? html`<p class="plan-tools"><button type="button" data-select="all">approve all</button> <button type="button" data-select="none">reject all</button> <span class="muted" data-count></span></p>` : ""}
  <ul class="moves">
  ${plan.operations.map(
    (op) => html`<li class="move" data-op="${op.id}">
    ${writable ? html`<label class="approve"><input type="checkbox" name="approve" value="${op.id}" /> approve</label>` : ""}
    <div class="move-body">
      <div><span class="action action-${op.op.toLowerCase()}">${op.op}</span> ${op.targets.map((t) => html`<code>${t}</code> `)}${op.placed ? html`→ <code>${op.placed}</code>` : ""}</div>
      <div class="muted">${op.reason} (${op.origin}) · from ${op.sources.join(", ")}</div>
      <pre class="op-text">${op.text}</pre>
    </div>
  </li>`,
  )}
  </ul>
  ${writable ? html`<button type="submit" class="primary">Apply approved operations</button></form>` : html`</div>`}`
}
${plan.diffs.map(
  // Memory files open; the pass's own state and report files stay folded.
  (d) =>
    html`<details class="diff"${d.path.endsWith(".md") && !d.path.includes("/dreams/") ? " open" : ""}><summary>${d.path}</summary>${diffView(d.diff)}</details>`,
)}
${plan.refused.map((r) => html`<p class="muted">refused ${r.op} (${r.code}): ${r.why}</p>`)}
${
  writable
    ? html`<form method="post" action="/actions/consolidation/undo" class="inline" data-confirm="Undo the last consolidation pass?">
  ${formFields(page)}<button type="submit">Undo the last consolidation</button></form>`
    : ""
}
</section>`;
}

/** A unified diff, one line per row, added and removed lines marked. */
export function diffView(diff: string): Html {
  return html`<pre class="diff-body">${diff.split("\n").map((line) => {
    const cls =
      line.startsWith("+++") || line.startsWith("---")
        ? "meta"
        : line.startsWith("+")
          ? "add"
          : line.startsWith("-")
            ? "del"
            : line.startsWith("@@")
              ? "hunk"
              : "ctx";
    return html`<span class="d-${cls}">${line}</span>\n`;
  })}</pre>`;
}

function candidatesSection(page: PageContext, result: CandidatesResult): Html {
  if (result.candidates.length === 0 && result.projects.length === 0) return html``;
  return html`<section id="candidates"><h2>Promotion candidates <small>recalled often</small></h2>
<ul class="candidates">
${result.candidates.map(
  (
    c,
  ) => html`<li><a href="${href(page, "/file", { path: c.path, lines: `${c.startLine}-${c.endLine}` }, "#hl")}">${cite(c.path, c.startLine, c.endLine)}</a>
  <span class="muted">score ${c.score.toFixed(2)}, recalled ${c.frequency}×</span><div>${c.text.split("\n")[0]}</div></li>`,
)}
${result.projects.map(
  (
    p,
  ) => html`<li><a href="${href(page, "/file", { path: p.path, lines: `${p.startLine}-${p.endLine}` }, "#hl")}">${cite(p.path, p.startLine, p.endLine)}</a>
  <span class="muted">project ${p.project} · ${p.heading}</span><div>${p.text.split("\n")[0]}</div></li>`,
)}
</ul></section>`;
}

function auditSection(audit: AuditEntry[]): Html {
  if (audit.length === 0) return html``;
  // Steps are many and say little here: the starts, commits and roll-backs tell the story.
  const shown = audit
    .filter((e) => !/step$/.test(e.event))
    .slice(-20)
    .reverse();
  return html`<section id="audit"><h2>Audit log <small>.engram/lifecycle/audit.jsonl</small></h2>
<table class="audit"><thead><tr><th>when</th><th>event</th><th>apply</th><th>detail</th></tr></thead><tbody>
${shown.map(
  (e) =>
    html`<tr><td>${e.at}</td><td>${e.event}</td><td><code>${e.applyId}</code></td><td class="muted">${detail(e)}</td></tr>`,
)}
</tbody></table></section>`;
}

function detail(e: AuditEntry): string {
  const { at: _at, event: _event, applyId: _id, ...rest } = e;
  const text = JSON.stringify(rest);
  return text === "{}" ? "" : text.length > 160 ? `${text.slice(0, 157)}…` : text;
}
