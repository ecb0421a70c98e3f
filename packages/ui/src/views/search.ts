import { TIERS } from "@engram/core";
import type { ExplainedResponse, ExplainedResult, SearchParams } from "../data/search.js";
import { cite, type Html, href, html, type PageContext } from "./html.js";

/** The search form, and the results when a query ran. */
export function searchView(
  page: PageContext,
  params: SearchParams,
  response: ExplainedResponse | null,
  error: string | null,
): Html {
  const tiers = new Set((params.tier ?? "").split(",").filter(Boolean));
  const sources = new Set((params.source ?? "").split(",").filter(Boolean));
  return html`<h1>Search</h1>
<form method="get" action="/search" class="search-form" role="search">
  ${page.scope !== page.defaultScope ? html`<input type="hidden" name="scope" value="${page.scope}" />` : ""}
  <input type="search" name="q" value="${params.q ?? ""}" placeholder="what to look for · 要找什么" aria-label="query" autofocus />
  <button type="submit">Search</button>
  <details class="filters"${params.mode || params.tier || params.source ? " open" : ""}>
    <summary>filters</summary>
    <label>mode <select name="mode">
      ${["", "hybrid", "keyword", "vector"].map(
        (m) =>
          html`<option value="${m}"${(params.mode ?? "") === m ? " selected" : ""}>${m || "default (hybrid)"}</option>`,
      )}
    </select></label>
    <fieldset><legend>tiers</legend>
      ${TIERS.map(
        (t) =>
          html`<label><input type="checkbox" name="tier" value="${t}"${tiers.has(t) ? " checked" : ""} /> ${t}</label>`,
      )}
    </fieldset>
    <fieldset><legend>sources</legend>
      ${["memory", "sessions"].map(
        (s) =>
          html`<label><input type="checkbox" name="source" value="${s}"${sources.has(s) ? " checked" : ""} /> ${s}</label>`,
      )}
    </fieldset>
    <label>results <input type="number" name="k" min="1" max="100" value="${params.k ?? ""}" placeholder="6" /></label>
  </details>
</form>
${error ? html`<p class="error-line">${error}</p>` : ""}
${response ? resultsView(page, response) : ""}`;
}

function resultsView(page: PageContext, response: ExplainedResponse): Html {
  return html`<section class="results" aria-label="results">
${response.degraded ? html`<p class="notice-line">Keyword search only: ${response.degradedReason ?? "no vectors"}</p>` : ""}
${response.vectorsOwed ? html`<p class="notice-line">${response.vectorsOwed} file(s) still owe their vectors: found by their keywords until the next sync.</p>` : ""}
${
  response.rerank
    ? html`<p class="muted">${
        response.rerank.applied
          ? `Reranked by ${response.rerank.provider}/${response.rerank.model} (${response.rerank.candidates} candidates, ${Math.round(response.rerank.ms)} ms).`
          : `The reranker ${response.rerank.provider}/${response.rerank.model} was skipped: ${response.rerank.skipped ?? "no answer"}; the fused order stands.`
      }</p>`
    : ""
}
${response.scope === "group" ? html`<p class="muted">Group scope: personal memory and private spans are left out.</p>` : ""}
${
  response.results.length === 0
    ? html`<p class="empty">No results for “${response.query}”.</p>`
    : html`<ol class="result-list">${response.results.map((r) => resultView(page, r))}</ol>`
}
</section>`;
}

function resultView(page: PageContext, r: ExplainedResult): Html {
  const where = cite(r.path, r.startLine, r.endLine);
  const link = href(page, "/file", { path: r.path, lines: `${r.startLine}-${r.endLine}` }, "#hl");
  return html`<li class="result">
  <div class="result-head">${
    // Transcripts are searchable but not memory files: the file page does not open them.
    r.source === "memory"
      ? html`<a class="cite" href="${link}">${where}</a>`
      : html`<span class="cite">${where}</span>`
  }
    <span class="tier tier-${r.tier}">${r.tier}</span>
    <span class="score" title="fused score, 0–1">${r.score.toFixed(3)}</span></div>
  ${r.headings.length ? html`<div class="headings muted">${r.headings.join(" › ")}</div>` : ""}
  <pre class="snippet">${marked(r.snippet, r.marks)}</pre>
  <div class="why">${why(r)}</div>
</li>`;
}

function why(r: ExplainedResult): Html {
  const parts: Html[] = [];
  const w = r.why;
  if (w.fusion === "weighted" || w.fusion === "rrf") {
    const agreement = w.fusion === "weighted" && w.weights.weighting === "agreement";
    parts.push(
      html`<span>${w.fusion === "rrf" ? "RRF" : agreement ? "weighted fusion (vector share by the lists' agreement)" : "weighted"}${w.fusion === "rrf" || agreement ? "" : " fusion"}</span>`,
    );
    const share = (weight: number) =>
      agreement ? `share ≤ ${weight.toFixed(2)}` : `× ${weight.toFixed(2)}`;
    if (w.vector !== undefined)
      parts.push(html`<span>vector ${w.vector.toFixed(3)} ${share(w.weights.vector)}</span>`);
    else parts.push(html`<span>no vector${r.vectorOwed ? " (owed)" : ""}</span>`);
    if (w.text !== undefined) parts.push(html`<span>keyword ${w.text.toFixed(3)}</span>`);
    else parts.push(html`<span>no keyword match</span>`);
  } else if (w.fusion === "keyword") {
    parts.push(
      html`<span>keyword: BM25 ${w.text !== undefined ? w.text.toFixed(3) : ""}, scored relative to the best hit</span>`,
    );
  } else {
    parts.push(html`<span>vector ${w.vector !== undefined ? w.vector.toFixed(3) : ""}</span>`);
  }
  if (w.rerank !== undefined) parts.push(html`<span>reranked: ${w.rerank.toFixed(3)}</span>`);
  parts.push(html`<span>tier ${r.tier} × ${w.tierWeight}</span>`);
  if (w.decay !== 1) parts.push(html`<span>age decay × ${w.decay.toFixed(3)}</span>`);
  if (r.provider)
    parts.push(
      html`<span class="muted">${r.provider}${r.model ? `/${r.model}` : ""}${r.fallback ? " (fallback)" : ""}</span>`,
    );
  return html`${parts.map((p, i) => html`${i ? " · " : ""}${p}`)}`;
}

/** `text` with each marked stretch wrapped in `<mark>`; everything escaped. */
export function marked(text: string, marks: ReadonlyArray<readonly [number, number]>): Html {
  const out: Html[] = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (start < at) continue;
    out.push(html`${text.slice(at, start)}<mark>${text.slice(start, end)}</mark>`);
    at = end;
  }
  out.push(html`${text.slice(at)}`);
  return html`${out}`;
}
