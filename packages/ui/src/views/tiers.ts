import type { FolderListing, TierSummary } from "../data/tiers.js";
import { formatAge, formatBytes, type Html, href, html, type PageContext } from "./html.js";

const TIER_NAMES = {
  short: "Short-term",
  mid: "Mid-term",
  long: "Long-term",
  archive: "Archive",
} as const;

/** The tiers as the layout maps them: globs, totals, folders with sizes and ages. */
export function tiersView(
  page: PageContext,
  tiers: TierSummary[],
  folder: FolderListing | null,
): Html {
  return html`<h1>Tiers</h1>
${folder ? folderView(page, folder) : ""}
<div class="tiers">
${tiers.map(
  (t) => html`<section class="tier-box tier-${t.tier}">
  <h2>${TIER_NAMES[t.tier]} <small>${t.files} files · ${formatBytes(t.bytes)}</small></h2>
  <p class="muted globs">${t.globs.length ? t.globs.join(", ") : "no globs: nothing maps here"}</p>
  ${
    t.folders.length
      ? html`<table class="folders"><thead><tr><th>folder</th><th>files</th><th>size</th><th>newest</th><th>oldest</th></tr></thead><tbody>
    ${t.folders.map(
      (f) =>
        html`<tr><td><a href="${href(page, "/tiers", { dir: f.folder }, "#folder")}">${f.folder}/</a></td><td>${f.files}</td><td>${formatBytes(f.bytes)}</td><td>${formatAge(f.newestMs)}</td><td>${formatAge(f.oldestMs)}</td></tr>`,
    )}</tbody></table>`
      : html`<p class="empty">empty</p>`
  }
</section>`,
)}
</div>`;
}

function folderView(page: PageContext, folder: FolderListing): Html {
  return html`<section class="folder" id="folder"><h2>${folder.folder}/</h2>
<table><thead><tr><th>file</th><th>tier</th><th>size</th><th>modified</th></tr></thead><tbody>
${folder.files.map(
  (f) =>
    html`<tr><td><a href="${href(page, "/file", { path: f.path })}">${f.name}</a></td><td><span class="tier tier-${f.tier}">${f.tier}</span></td><td>${formatBytes(f.size)}</td><td>${formatAge(f.mtimeMs)}</td></tr>`,
)}
</tbody></table>
${folder.more ? html`<p class="muted">and ${folder.more} older files</p>` : ""}
</section>`;
}
