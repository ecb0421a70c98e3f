import { longTermFiles } from "../lifecycle/dedupe.js";
import { workspacePath } from "../lifecycle/files.js";
import type { LifecycleHost } from "../lifecycle/host.js";
import { sha256Hex } from "../text/hash.js";
import { isSensitiveFile, type LineRange, privateRanges } from "../workspace/privacy.js";
import { readTexts } from "../workspace/read-texts.js";
import type { LineRef } from "./citations.js";
import { isConsolidationPath } from "./paths.js";

/** One entry of a Markdown file: a list item (with its continuation lines) or a paragraph. */
export interface Entry extends LineRef {
  /** The entry's lines as written (list marker included). */
  text: string;
  /** True when it lies in a private block or the file is sensitive. */
  private: boolean;
}

/** A long-term file as consolidation reads it. */
export interface CuratedFile {
  path: string;
  text: string;
  /** SHA-256 of the text. */
  hash: string;
  lines: string[];
  sensitive: boolean;
  privateRanges: LineRange[];
  entries: Entry[];
}

/** Every long-tier Markdown file (consolidation's own files excepted), read and split into entries. */
export async function readCurated(host: LifecycleHost): Promise<CuratedFile[]> {
  const files = (await longTermFiles(host))
    .filter((path) => !isConsolidationPath(path) && !path.startsWith("/"))
    .map((path) => ({ path, absPath: workspacePath(host.workspace, path) }));
  const out: CuratedFile[] = [];
  for await (const [{ path }, { text }] of readTexts(files)) out.push(curatedFile(path, text));
  return out;
}

/** Split one file's text (see {@link CuratedFile}). */
export function curatedFile(path: string, text: string): CuratedFile {
  const sensitive = isSensitiveFile(text);
  const ranges = privateRanges(text);
  const entries = entriesOf(text).map((e) => ({
    path,
    ...e,
    private: sensitive || ranges.some((r) => r.startLine <= e.endLine && e.startLine <= r.endLine),
  }));
  return {
    path,
    text,
    hash: sha256Hex(text),
    lines: text.split("\n"),
    sensitive,
    privateRanges: ranges,
    entries,
  };
}

const ITEM_RE = /^(\s*)(?:[-*+]|\d+[.)])\s+/;
const HEADING_RE = /^#{1,6}\s/;
const FENCE_RE = /^\s*(```|~~~)/;
const COMMENT_ONLY_RE = /^\s*<!--.*-->\s*$/;

/**
 * The entries of a Markdown text, in order: each top-level list item with its indented
 * continuation lines, each paragraph, each fenced block. Front matter, headings, blank lines and
 * lines holding only an HTML comment (private-block markers) are not entries.
 */
export function entriesOf(
  text: string,
): Array<{ startLine: number; endLine: number; text: string }> {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const out: Array<{ startLine: number; endLine: number; text: string }> = [];
  let start = 0;
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) start = end + 1;
  }
  let current: { startLine: number; endLine: number; lines: string[]; item: boolean } | null = null;
  const close = () => {
    if (current) {
      out.push({
        startLine: current.startLine,
        endLine: current.endLine,
        text: current.lines.join("\n"),
      });
    }
    current = null;
  };
  for (let i = start; i < lines.length; i++) {
    const line = lines[i] as string;
    const n = i + 1;
    if (FENCE_RE.test(line)) {
      close();
      let j = i + 1;
      while (j < lines.length && !FENCE_RE.test(lines[j] as string)) j++;
      const end = Math.min(j, lines.length - 1);
      out.push({ startLine: n, endLine: end + 1, text: lines.slice(i, end + 1).join("\n") });
      i = end;
      continue;
    }
    if (line.trim() === "" || HEADING_RE.test(line) || COMMENT_ONLY_RE.test(line)) {
      close();
      continue;
    }
    const item = ITEM_RE.exec(line);
    const top = item !== null && (item[1] as string).length === 0;
    const c = current as {
      startLine: number;
      endLine: number;
      lines: string[];
      item: boolean;
    } | null;
    if (top || !c) {
      close();
      current = { startLine: n, endLine: n, lines: [line], item: item !== null };
    } else {
      c.lines.push(line);
      c.endLine = n;
    }
  }
  close();
  return out;
}
