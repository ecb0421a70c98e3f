import { readFrontMatter } from "@engram/core/internal";
import type { FileView } from "../data/files.js";
import { renderMarkdown } from "../markdown.js";
import { formFields, type Html, href, html, type PageContext, raw } from "./html.js";

/** Options of {@link fileView}. */
export interface FileViewOptions {
  /** Lines to highlight and scroll to (a search result's or an entry's). */
  lines?: { from: number; to: number };
  /** Show the text with line numbers instead of rendered. */
  rawView: boolean;
  /** Show the edit form for `lines`. */
  edit: boolean;
  /** Whether forget/edit controls are offered (main scope, writable, long-term). */
  curate: boolean;
  /** The outcome of a forget or edit that led here: said, with its undo. */
  notice?: "forgotten" | "unforgotten" | "updated" | "unupdated";
}

/** One memory file, rendered or raw, the cited lines highlighted. */
export function fileView(page: PageContext, file: FileView, options: FileViewOptions): Html {
  const { lines } = options;
  const linesParam = lines ? `${lines.from}-${lines.to}` : undefined;
  const rendered = href(page, "/file", { path: file.path, lines: linesParam }, lines ? "#hl" : "");
  const rawHref = href(
    page,
    "/file",
    { path: file.path, lines: linesParam, raw: 1 },
    lines ? "#hl" : "",
  );
  return html`<h1 class="file-title">${file.path}</h1>
<p class="file-meta"><span class="tier tier-${file.tier}">${file.tier}</span> ${file.totalLines} lines
  ${lines ? html` · lines ${lines.from}–${lines.to}` : ""}
  · <a href="${rendered}"${options.rawView ? "" : html` aria-current="page"`}>rendered</a>
  · <a href="${rawHref}"${options.rawView ? html` aria-current="page"` : ""}>raw</a></p>
${options.notice ? noticeView(page, file, options.notice) : ""}
${options.curate ? curateForms(page, file, options) : ""}
${options.rawView ? rawLines(page, file, lines) : renderedFile(page, file, lines)}`;
}

function renderedFile(page: PageContext, file: FileView, lines: FileViewOptions["lines"]): Html {
  let front = 0;
  try {
    front = readFrontMatter(file.text).lines;
  } catch {
    front = 0; // invalid front matter: render it as text
  }
  const all = file.text.split("\n");
  const body = all.slice(front).join("\n");
  let out = renderMarkdown(body, {
    path: file.path,
    lineOffset: front,
    fileHref: (p) => href(page, "/file", { path: p }),
  });
  if (lines) out = highlightBlocks(out, lines.from, lines.to);
  return html`${front ? html`<pre class="front-matter">${all.slice(0, front).join("\n")}</pre>` : ""}<div class="md file-body">${raw(out)}</div>`;
}

/** Mark the rendered blocks that show any of the lines `from..to`; the first gets `id="hl"`. */
export function highlightBlocks(rendered: string, from: number, to: number): string {
  let first = true;
  return rendered.replace(
    /<(p|h[1-6]|li|code|tr|hr|blockquote)\b([^>]*?) data-line="(\d+)" data-line-end="(\d+)"/g,
    (m, tag: string, attrs: string, a: string, b: string) => {
      if (Number(a) > to || Number(b) < from) return m;
      const id = first ? ' id="hl"' : "";
      first = false;
      return `<${tag}${attrs}${id} data-hl="" data-line="${a}" data-line-end="${b}"`;
    },
  );
}

function rawLines(page: PageContext, file: FileView, lines: FileViewOptions["lines"]): Html {
  const all = file.text === "" ? [] : file.text.split("\n");
  let first = true;
  return html`<table class="raw" data-path="${file.path}"><tbody>
${all.map((text, i) => {
  const n = i + 1;
  const hl = lines && n >= lines.from && n <= lines.to;
  const id = hl && first ? "hl" : `L${n}`;
  if (hl) first = false;
  return html`<tr id="${id}"${hl ? html` data-hl=""` : ""}><td class="ln"><a href="${href(page, "/file", { path: file.path, lines: `${n}-${n}`, raw: 1 }, "#hl")}" data-line="${n}">${n}</a></td><td class="code">${text}</td></tr>`;
})}
</tbody></table>`;
}

function curateForms(page: PageContext, file: FileView, options: FileViewOptions): Html {
  const from = options.lines?.from ?? "";
  const to = options.lines?.to ?? "";
  const current =
    options.lines && options.edit
      ? file.text
          .split("\n")
          .slice(options.lines.from - 1, options.lines.to)
          .join("\n")
      : null;
  return html`<details class="curate-lines"${options.lines ? " open" : ""}>
<summary>Forget or edit lines of this file</summary>
<form method="post" action="/actions/forget" class="line-form" data-confirm="Forget these lines? They are archived and can be brought back.">
  ${formFields(page)}<input type="hidden" name="path" value="${file.path}" />
  <label>from <input name="startLine" type="number" min="1" required value="${from}" inputmode="numeric" /></label>
  <label>to <input name="endLine" type="number" min="1" required value="${to}" inputmode="numeric" /></label>
  <label class="grow">reason <input name="reason" required placeholder="why (kept with the archived lines)" /></label>
  <button type="submit" class="danger">Forget</button>
</form>
${
  current !== null && options.lines
    ? html`<form method="post" action="/actions/update" class="edit-form">
  ${formFields(page)}<input type="hidden" name="path" value="${file.path}" />
  <input type="hidden" name="startLine" value="${options.lines.from}" /><input type="hidden" name="endLine" value="${options.lines.to}" />
  <label>new text for lines ${options.lines.from}–${options.lines.to}<textarea name="text" rows="6" required>${current}</textarea></label>
  <label>reason <input name="reason" required placeholder="why (kept with the old text in the archive)" /></label>
  <button type="submit">Save edit</button>
</form>`
    : options.lines
      ? html`<p><a href="${href(page, "/file", { path: file.path, lines: `${options.lines.from}-${options.lines.to}`, raw: 1, edit: 1 }, "#hl")}">Edit lines ${options.lines.from}–${options.lines.to}…</a></p>`
      : html`<p class="muted">Pick lines: click a line number in the raw view.</p>`
}
</details>`;
}

function noticeView(
  page: PageContext,
  file: FileView,
  notice: NonNullable<FileViewOptions["notice"]>,
): Html {
  if (notice === "unforgotten" || notice === "unupdated") {
    const said =
      notice === "unforgotten"
        ? "Brought back what the last forget removed."
        : "Undid the edit: the old text is back.";
    return html`<p class="flash" role="status">${said}</p>`;
  }
  const [text, action, label] =
    notice === "forgotten"
      ? [
          "Forgotten: the lines are in the archive, with the reason.",
          "/actions/forget/undo",
          "Bring them back",
        ]
      : [
          "Saved the edit; the old text is in the archive.",
          "/actions/update/undo",
          "Undo the edit",
        ];
  return html`<div class="flash" role="status">${text}
  ${
    page.readOnly
      ? ""
      : html`<form method="post" action="${action}" class="inline">${formFields(page)}<input type="hidden" name="path" value="${file.path}" /><button type="submit">${label}</button></form>`
  }</div>`;
}
