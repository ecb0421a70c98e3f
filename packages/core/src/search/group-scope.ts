import path from "node:path";
import type { MemoryScope } from "../privacy/scope-sources.js";
import { isPersonalPath, isSensitiveFile, redactPrivate } from "../workspace/privacy.js";
import { readUtf8 } from "../workspace/read.js";
import type { SearchOptions, SearchResponse, SearchResult } from "./types.js";

export type { MemoryScope } from "../privacy/scope-sources.js";

/** What {@link searchGroupScope} needs to know about the workspace. */
export interface GroupScopeParts {
  /** The workspace's real path (relative result paths are read from here). */
  workspace: string;
  /** Workspace-relative files never shown in the group scope (besides every `MEMORY.md`). */
  personalFiles: readonly string[];
  /** Results per query when the options name none. */
  maxResults: number;
  /** Largest file read to check a result against (larger files are dropped). */
  maxBytes: number;
}

/**
 * Runs `run` for the group scope. The search itself reads only what a group may see (the store
 * filters by the scope each chunk was labelled with when it was indexed: see
 * `sync/scoped-chunks`), so private text never takes a candidate's place, a rank or a share of a
 * score. Each result is then checked against the file on disk by {@link keepForGroup}, which
 * drops it when the index is behind the file (e.g. a private marker added since the last sync).
 */
export async function searchGroupScope(
  run: (options: SearchOptions) => Promise<SearchResponse>,
  options: SearchOptions,
  parts: GroupScopeParts,
): Promise<SearchResponse> {
  const response = await run({ ...options, scope: "group" as MemoryScope });
  return { ...response, results: await keepForGroup(response.results, parts) };
}

/**
 * The results that may be shown in a group: from a memory file that is not personal (any
 * `MEMORY.md`, `personalFiles`) and not marked `sensitive: true` (or with front matter that does
 * not parse), whose snippet is exactly the public view of its lines in the file as it is now
 * (private spans replaced by `[private]`). Each file is read once, from disk (the truth, not the
 * index); a file that cannot be read is dropped — failing closed.
 */
export async function keepForGroup(
  results: readonly SearchResult[],
  parts: Pick<GroupScopeParts, "workspace" | "personalFiles" | "maxBytes">,
): Promise<SearchResult[]> {
  const views = new Map<string, Promise<string[] | null>>();
  const kept: SearchResult[] = [];
  for (const result of results) {
    if (result.source !== "memory" || isPersonalPath(result.path, parts.personalFiles)) continue;
    let view = views.get(result.path);
    if (!view) {
      view = publicLines(parts.workspace, result.path, parts.maxBytes);
      views.set(result.path, view);
    }
    const lines = await view;
    if (lines && showsOnlyPublic(result, lines)) kept.push(result);
  }
  return kept;
}

/** The file's lines with private spans redacted, or null when it is sensitive or unreadable. */
async function publicLines(
  workspace: string,
  file: string,
  maxBytes: number,
): Promise<string[] | null> {
  const abs = path.isAbsolute(file) ? file : path.join(workspace, ...file.split("/"));
  try {
    const { text } = await readUtf8(abs, { maxBytes });
    const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
    return isSensitiveFile(normalized) ? null : redactPrivate(normalized).split("\n");
  } catch {
    return null;
  }
}

/**
 * True when the snippet is the public view of its lines: exactly those lines, or, for a snippet
 * of one long line, a piece of it (the `…` a cut adds aside).
 */
function showsOnlyPublic(result: SearchResult, lines: readonly string[]): boolean {
  const view = lines.slice(result.startLine - 1, result.endLine).join("\n");
  if (result.snippet === view) return true;
  if (result.startLine !== result.endLine) return false;
  const piece = result.snippet.replace(/^…/, "").replace(/…$/, "");
  return piece.trim() !== "" && view.includes(piece);
}
