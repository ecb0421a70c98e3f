import path from "node:path";
import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";

/** Where a rendered piece of Markdown comes from, for line numbers and relative links. */
export interface RenderSource {
  /** The file's index path (relative links resolve against its folder). */
  path: string;
  /** Line number of the text's first line in the file, minus one (0 for a whole file). */
  lineOffset?: number;
  /** The page URL of another memory file (relative `.md` links point there). */
  fileHref: (path: string) => string;
}

/** Private-span markers, on a line of their own or inline (shown as badges in the main scope). */
const MARKER_RE = /<!--\s*(\/?)\s*engram:private\s*-->/gi;
const OPEN_SENTINEL = "\uE000";
const CLOSE_SENTINEL = "\uE001";

/**
 * Markdown as core parses it (markdown-it), with raw HTML off: a `<script>` in a memory file is
 * shown as text, never run. Every block carries `data-line` / `data-line-end` (1-based, inclusive)
 * so the page can scroll to and highlight the lines a search result cites.
 */
const md = new MarkdownIt({ html: false, linkify: true });

md.core.ruler.push("engram_source_lines", (state) => {
  const offset = (state.env as Env).lineOffset;
  for (const token of state.tokens) {
    if (!token.map || token.nesting === -1) continue;
    token.attrSet("data-line", String(offset + token.map[0] + 1));
    token.attrSet("data-line-end", String(offset + token.map[1]));
  }
});

interface Env {
  lineOffset: number;
  dir: string;
  fileHref: (path: string) => string;
}

const defaultLinkOpen =
  md.renderer.rules.link_open ??
  ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));

md.renderer.rules.link_open = (tokens, idx, options, env: Env, self) => {
  const token = tokens[idx];
  const href = token?.attrGet("href") ?? "";
  if (token && /^https?:/i.test(href)) {
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer");
  } else if (token && isRelativeMarkdownLink(href)) {
    const target = path.posix.normalize(
      path.posix.join(env.dir, decodeURI(href.split("#")[0] ?? "")),
    );
    if (!target.startsWith("../")) token.attrSet("href", env.fileHref(target));
  }
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** The allow-list every rendered fragment passes through, after markdown-it. */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "blockquote",
    "ul",
    "ol",
    "li",
    "pre",
    "code",
    "em",
    "strong",
    "del",
    "s",
    "a",
    "hr",
    "br",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "img",
    "span",
  ],
  allowedAttributes: {
    "*": ["data-line", "data-line-end"],
    a: ["href", "title", "target", "rel"],
    img: ["src", "alt", "title"],
    code: ["class"],
    span: ["class", "title"],
    th: ["style"],
    td: ["style"],
  },
  allowedStyles: { "*": { "text-align": [/^(left|right|center)$/] } },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["data"] },
  allowProtocolRelative: false,
  allowedClasses: { code: [/^language-[\w-]+$/], span: ["private-mark", "hl"] },
};

/**
 * Render memory Markdown to safe HTML: markdown-it without raw HTML, then sanitize-html with a
 * strict allow-list (no scripts, event handlers, styles beyond table alignment, or `javascript:`
 * links). Private-span markers become badges.
 */
export function renderMarkdown(text: string, source: RenderSource): string {
  const marked = text
    .replaceAll(OPEN_SENTINEL, "")
    .replaceAll(CLOSE_SENTINEL, "")
    .replace(MARKER_RE, (_m, slash: string) => (slash ? CLOSE_SENTINEL : OPEN_SENTINEL));
  const env: Env = {
    lineOffset: source.lineOffset ?? 0,
    dir: path.posix.dirname(source.path),
    fileHref: source.fileHref,
  };
  const clean = sanitizeHtml(md.render(marked, env), SANITIZE);
  return clean
    .replaceAll(
      OPEN_SENTINEL,
      '<span class="private-mark" title="private span: shown in the main scope only">private</span>',
    )
    .replaceAll(CLOSE_SENTINEL, '<span class="private-mark">end of private</span>');
}

/** The `## …` entries of a log: each heading's 1-based line and level, as markdown-it finds them. */
export function headingLines(text: string): Array<{ line: number; level: number; title: string }> {
  const tokens = md.parse(text, {
    lineOffset: 0,
    dir: ".",
    fileHref: () => "",
  } satisfies Env);
  const out: Array<{ line: number; level: number; title: string }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t?.type !== "heading_open" || !t.map) continue;
    out.push({
      line: t.map[0] + 1,
      level: Number(t.tag.slice(1)),
      title: tokens[i + 1]?.content ?? "",
    });
  }
  return out;
}

function isRelativeMarkdownLink(href: string): boolean {
  return (
    !/^[a-z][a-z0-9+.-]*:/i.test(href) &&
    !href.startsWith("/") &&
    !href.startsWith("#") &&
    /\.md(#.*)?$/i.test(href)
  );
}
