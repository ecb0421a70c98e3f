import { headingPaths } from "../chunking/chunker.js";
import { chunkId } from "../chunking/ids.js";
import { cutLongLine } from "../chunking/long-line.js";
import { resolveChunkingOptions } from "../chunking/options.js";
import { normalizeSource } from "../chunking/source.js";
import { groupOnlySource, mainOnlySource } from "../privacy/scope-sources.js";
import type { ChunkRecord, FileRecord } from "../store/records.js";
import type { Analyzer } from "../text/analyzer.js";
import { sha256Hex } from "../text/hash.js";
import {
  isPersonalPath,
  isSensitiveFile,
  type PrivateSpan,
  privateSpans,
  REDACTED,
  redactPrivate,
  unclosedSpanWarning,
} from "../workspace/privacy.js";
import {
  type ChunkingConfig,
  chunkRecords,
  isLogFile,
  termsWithHeadings,
} from "./chunk-records.js";

/** A Markdown file's chunk records, each labelled with the scope that may see it. */
export interface ScopedChunks {
  chunks: ChunkRecord[];
  /** E.g. a private span never closed (private to the end of the file). */
  warnings: string[];
}

/** Ordinals of group-only copies start here, so their ids never meet a main chunk's. */
const GROUP_ORDINAL = 1000;

/**
 * Chunk a memory file and label every chunk with the scope that may see it, through its source
 * (see `privacy/scope-sources`), so a search filters by scope in the store itself:
 *
 * - A chunk with no private text, of a file neither personal nor sensitive: `memory`, both scopes.
 * - Every chunk of a personal file (any `MEMORY.md`, the layout's long-term file and profile) or
 *   of a `sensitive: true` file, and every chunk holding any part of a private span, or under a
 *   heading written inside one: `memory#private`, the main scope only, with its full text.
 * - For each such chunk of an ordinary file, its public view — the same lines, each private span
 *   replaced by `[private]`, with the headings of the public text — as `memory#redacted`, the
 *   group scope only, its terms taken from the public words alone; none when nothing public is
 *   left. So a public line that shares a chunk with a private one stays findable in a group, and
 *   nothing private is in what a group search reads.
 *
 * Chunk boundaries are those of the whole file, so the main scope ranks exactly as before.
 */
export function scopedChunkRecords(
  file: Pick<FileRecord, "path" | "source" | "tier">,
  text: string,
  analyzer: Analyzer,
  chunking: ChunkingConfig,
  personalFiles: readonly string[],
): ScopedChunks {
  const chunks = chunkRecords(file, text, analyzer, chunking);
  const normalized = normalizeSource(text);
  if (isPersonalPath(file.path, personalFiles) || isSensitiveFile(normalized)) {
    for (const chunk of chunks) chunk.source = mainOnlySource(file.source);
    return { chunks, warnings: [] };
  }
  const spans = privateSpans(normalized);
  if (spans.length === 0) return { chunks, warnings: [] };
  const warning = unclosedSpanWarning(file.path, spans);
  const redacted = redactPrivate(normalized);
  const publicLines = redacted.split("\n");
  const publicHeadings = headingPaths(redacted);
  const limit = resolveChunkingOptions(
    chunking.logs && isLogFile(file) ? chunking.logs : chunking,
  ).tokens;
  const out: ChunkRecord[] = [];
  const viewed = new Set<string>();
  for (const chunk of chunks) {
    const headings = publicHeadings(chunk.startLine - 1);
    if (!touchesSpan(chunk, spans) && sameList(headings, chunk.headings)) {
      out.push(chunk);
      continue;
    }
    out.push({ ...chunk, source: mainOnlySource(file.source) });
    const range = `${chunk.startLine}:${chunk.endLine}`;
    if (viewed.has(range)) continue; // the pieces of one long line share one public view
    viewed.add(range);
    const view = publicLines.slice(chunk.startLine - 1, chunk.endLine).join("\n");
    if (view.split(REDACTED).join("").trim() === "") continue;
    const pieces = chunk.startLine === chunk.endLine ? cutLongLine(view, limit) : [view];
    pieces.forEach((piece, i) => {
      const at = { startLine: chunk.startLine, endLine: chunk.endLine, text: piece };
      out.push({
        ...chunk,
        id: chunkId(file.path, at, GROUP_ORDINAL + i),
        source: groupOnlySource(file.source),
        headings,
        text: piece,
        hash: sha256Hex(piece),
        // The public words only: "[private]" itself is nothing to find.
        terms: termsWithHeadings(piece.split(REDACTED).join(" "), headings, analyzer),
        embedding: null,
      });
    });
  }
  return { chunks: out, warnings: warning ? [warning] : [] };
}

/** True when the chunk's lines hold any part of a private span. */
function touchesSpan(chunk: ChunkRecord, spans: readonly PrivateSpan[]): boolean {
  return spans.some((s) => s.startLine <= chunk.endLine && chunk.startLine <= s.endLine);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
