import path from "node:path";
import { isSensitiveFile, overlapsPrivate, privateRanges } from "../workspace/privacy.js";
import { readUtf8 } from "../workspace/read.js";
import type { SearchOptions, SearchResponse, SearchResult } from "./types.js";

/**
 * Who a search or a context is for. `main`: the user's own session, everything. `group`: a shared
 * conversation — personal files (`MEMORY.md`, the profile), files with `sensitive: true` front
 * matter, private blocks and session transcripts are left out.
 */
export type MemoryScope = "main" | "group";

/** What {@link searchGroupScope} needs to know about the workspace. */
export interface GroupScopeParts {
  /** The workspace's real path (relative result paths are read from here). */
  workspace: string;
  /** Workspace-relative files never shown in the group scope. */
  personalFiles: readonly string[];
  /** Results per query when the options name none. */
  maxResults: number;
  /** Largest file read to check for private blocks (larger files are dropped). */
  maxBytes: number;
}

/** Results fetched per result wanted, so that dropping private ones still leaves enough. */
const OVERFETCH = 3;

/**
 * Runs `run` for the group scope: asks for {@link OVERFETCH}× the results, drops every result
 * {@link keepForGroup} refuses, and returns at most the results wanted.
 */
export async function searchGroupScope(
  run: (options: SearchOptions) => Promise<SearchResponse>,
  options: SearchOptions,
  parts: GroupScopeParts,
): Promise<SearchResponse> {
  const wanted = options.maxResults ?? parts.maxResults;
  const response = await run({ ...options, maxResults: wanted * OVERFETCH });
  const kept = await keepForGroup(response.results, parts);
  return { ...response, results: kept.slice(0, wanted) };
}

/**
 * The results that may be shown in a group: not from a personal file, not a session transcript,
 * not from a file marked `sensitive: true` (or with front matter that does not parse), and not
 * showing any line of a private block. Each file is read once, from disk (the truth, not the
 * index); a file that cannot be read is dropped — failing closed.
 */
export async function keepForGroup(
  results: readonly SearchResult[],
  parts: Pick<GroupScopeParts, "workspace" | "personalFiles" | "maxBytes">,
): Promise<SearchResult[]> {
  const personal = new Set(parts.personalFiles);
  const verdicts = new Map<string, Promise<FilePrivacy | null>>();
  const kept: SearchResult[] = [];
  for (const result of results) {
    if (result.source !== "memory" || personal.has(result.path)) continue;
    let verdict = verdicts.get(result.path);
    if (!verdict) {
      verdict = filePrivacy(parts.workspace, result.path, parts.maxBytes);
      verdicts.set(result.path, verdict);
    }
    const privacy = await verdict;
    if (!privacy || privacy.sensitive) continue;
    if (overlapsPrivate(result, privacy.ranges)) continue;
    kept.push(result);
  }
  return kept;
}

interface FilePrivacy {
  sensitive: boolean;
  ranges: ReturnType<typeof privateRanges>;
}

async function filePrivacy(
  workspace: string,
  file: string,
  maxBytes: number,
): Promise<FilePrivacy | null> {
  const abs = path.isAbsolute(file) ? file : path.join(workspace, ...file.split("/"));
  try {
    const { text } = await readUtf8(abs, { maxBytes });
    return { sensitive: isSensitiveFile(text), ranges: privateRanges(text) };
  } catch {
    return null;
  }
}
