import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { workspacePath } from "../lifecycle/files.js";
import { hostTierOf, type LifecycleHost } from "../lifecycle/host.js";
import { scanTranscripts } from "../sessions/scan.js";
import { renderTranscript } from "../sessions/transcript.js";
import { sha256Hex } from "../text/hash.js";
import { resolveLayout, THREE_TIER_PATHS } from "../workspace/presets.js";
import { isSensitiveFile, privateRanges } from "../workspace/privacy.js";
import { scanWorkspace } from "../workspace/scan.js";
import type { ConsolidationConfig } from "./config-schema.js";
import { isConsolidationPath } from "./paths.js";
import type { ConsolidationState, SeenFile } from "./state.js";

/** A source file with lines not read by an earlier pass. */
export interface SourceFile {
  /** Workspace path (a transcript outside the workspace: absolute). */
  path: string;
  /** Watermark key: `daily:YYYY-MM-DD` for daily logs (live or archived), else the path. */
  key: string;
  kind: "daily" | "short-term" | "session";
  /** The file's lines as shown (a transcript's messages rendered one per line). */
  lines: string[];
  /** First new line (1-based); lines before it were read by an earlier pass. */
  from: number;
  /** Line numbers that are private (a private block, or the whole file when sensitive). */
  privateLines: Set<number>;
  /** The watermark entry once the file is read to its end. */
  seen: SeenFile;
}

const DATE_NAME = /^(\d{4}-\d{2}-\d{2})\.md$/;

/**
 * The source files with lines newer than the watermark: daily logs (the live ones and those the
 * lifecycle archived to `memory/archive/daily/`), short-term files and, when enabled, session
 * transcripts. A file whose already-read lines changed is read again from its start (dedupe keeps
 * that harmless). Unchanged files (same size and mtime) are not read.
 */
export async function readNewSources(
  host: LifecycleHost,
  state: ConsolidationState,
  config: ConsolidationConfig,
): Promise<SourceFile[]> {
  const ws = host.workspace;
  const layout = resolveLayout(host.config);
  const tierOf = hostTierOf(host);
  const candidates: Array<{ path: string; abs: string; key: string; kind: SourceFile["kind"] }> =
    [];
  if (config.sources.dailyLogs) {
    const live = new Set<string>();
    for (const name of await listNames(ws, layout.dailyLogDir)) {
      const date = DATE_NAME.exec(name)?.[1];
      if (!date) continue;
      live.add(date);
      const rel = `${layout.dailyLogDir}/${name}`;
      candidates.push({
        path: rel,
        abs: workspacePath(ws, rel),
        key: `daily:${date}`,
        kind: "daily",
      });
    }
    const archived = `${THREE_TIER_PATHS.archiveDir}/daily`;
    for (const name of await listNames(ws, archived)) {
      const date = DATE_NAME.exec(name)?.[1];
      if (!date || live.has(date)) continue;
      const rel = `${archived}/${name}`;
      candidates.push({
        path: rel,
        abs: workspacePath(ws, rel),
        key: `daily:${date}`,
        kind: "daily",
      });
    }
  }
  if (config.sources.shortTerm) {
    const { files } = await scanWorkspace({ workspace: ws });
    const dailyDir = `${layout.dailyLogDir}/`;
    for (const f of files) {
      if (tierOf(f.path) !== "short" || isConsolidationPath(f.path)) continue;
      if (f.path.startsWith(dailyDir) && DATE_NAME.test(f.path.slice(dailyDir.length))) continue;
      candidates.push({ path: f.path, abs: f.absPath, key: f.path, kind: "short-term" });
    }
  }
  const sessions = config.sources.sessions ?? host.config.sessions.enabled;
  if (sessions) {
    const { files } = scanTranscripts(ws, { ...host.config.sessions, enabled: true });
    for (const f of files)
      candidates.push({ path: f.path, abs: f.absPath, key: f.path, kind: "session" });
  }
  const out: SourceFile[] = [];
  for (const c of candidates) {
    const file = await readSource(c, state.seen[c.key]);
    if (file) out.push(file);
  }
  return out;
}

async function readSource(
  c: { path: string; abs: string; key: string; kind: SourceFile["kind"] },
  seen: SeenFile | undefined,
): Promise<SourceFile | null> {
  const st = await lstat(c.abs).catch(() => null);
  if (!st?.isFile()) return null;
  if (seen && seen.size === st.size && seen.mtimeMs === Math.floor(st.mtimeMs)) return null;
  const raw = await readFile(c.abs, "utf8");
  const text = c.kind === "session" ? renderTranscript(raw).text : raw;
  const lines = text.split("\n");
  // A trailing newline ends the last line; it does not start an empty one.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const total = lines.length;
  let from = 1;
  if (seen && seen.lines <= total && linesHash(lines, seen.lines) === seen.hash)
    from = seen.lines + 1;
  const privateLines = new Set<number>();
  if (c.kind !== "session") {
    if (isSensitiveFile(raw)) for (let n = 1; n <= total; n++) privateLines.add(n);
    for (const r of privateRanges(raw)) {
      for (let n = r.startLine; n <= Math.min(r.endLine, total); n++) privateLines.add(n);
    }
  }
  const next: SeenFile = {
    lines: total,
    hash: linesHash(lines, total),
    size: st.size,
    mtimeMs: Math.floor(st.mtimeMs),
  };
  if (from > total) {
    // Nothing new (e.g. only the mtime moved): remember the new size and mtime.
    return { ...c, lines, from, privateLines, seen: next };
  }
  return { path: c.path, key: c.key, kind: c.kind, lines, from, privateLines, seen: next };
}

/** SHA-256 (16 hex digits) of the first `n` lines. */
export function linesHash(lines: readonly string[], n: number): string {
  return sha256Hex(lines.slice(0, n).join("\n")).slice(0, 16);
}

async function listNames(ws: string, rel: string): Promise<string[]> {
  const names = await readdir(workspacePath(ws, rel)).catch(() => [] as string[]);
  return names.filter((n) => !n.startsWith(".")).sort();
}

/** The date a source's name carries (`memory/2026-03-05.md` → `2026-03-05`), if any. */
export function sourceDate(p: string): string | null {
  return DATE_NAME.exec(path.posix.basename(p))?.[1] ?? null;
}
