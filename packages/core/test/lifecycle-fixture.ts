import { createHash } from "node:crypto";
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  utimes,
  writeFile,
} from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { resolveConfig } from "../src/config/load.js";
import type { EngramConfigInput } from "../src/config/schema.js";
import type { LifecycleHost } from "../src/lifecycle/host.js";

const cleanups: string[] = [];
afterEach(async () => {
  for (const dir of cleanups.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A fresh temp workspace (real path), removed after the test. */
export async function tempWorkspace(): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "engram-lifecycle-")));
  cleanups.push(dir);
  return dir;
}

/** A files-only lifecycle host over `ws` (the index is exercised by the CLI package's tests). */
export function hostOf(ws: string, config: EngramConfigInput = {}): LifecycleHost {
  return { workspace: ws, config: resolveConfig(config) };
}

/** Write files (relative path → content), creating folders. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

/** Set a file's mtime. */
export async function touchAt(root: string, rel: string, when: Date): Promise<void> {
  await utimes(path.join(root, rel), when, when);
}

/**
 * The full listing of the workspace minus `.engram/`: `dir/` for every folder and
 * `path sha256` for every file, sorted.
 */
export async function treeListing(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (child === ".engram") continue;
      if (e.isDirectory()) {
        out.push(`${child}/`);
        await visit(child);
      } else {
        const hash = createHash("sha256")
          .update(await readFile(path.join(root, child)))
          .digest("hex");
        out.push(`${child} ${hash}`);
      }
    }
  };
  await visit("");
  return out.sort();
}

/** Every non-empty line of every file (minus `.engram/`): what must never be lost. */
export async function allLines(root: string): Promise<Set<string>> {
  const lines = new Set<string>();
  for (const entry of await treeListing(root)) {
    if (entry.endsWith("/")) continue;
    const rel = entry.slice(0, entry.lastIndexOf(" "));
    for (const line of (await readFile(path.join(root, rel), "utf8")).split("\n")) {
      if (line.trim()) lines.add(line);
    }
  }
  return lines;
}

/** Copy a workspace (without `.engram/`) to a fresh temp folder. */
export async function copyWorkspace(from: string): Promise<string> {
  const to = await tempWorkspace();
  await cp(from, to, { recursive: true, filter: (src) => !src.includes(`${path.sep}.engram`) });
  return to;
}

/** "Now" for {@link richWorkspace}: 2026-01-12 10:00 local time. */
export const NOW = new Date(2026, 0, 12, 10, 0);

/** A workspace exercising every default rule, with daily logs for January 1..`days`. */

export async function richWorkspace(days = 12): Promise<string> {
  const ws = await tempWorkspace();
  const files: Record<string, string> = {
    "MEMORY.md": "# Long-term Memory\n\n## 2026-01-01 09:00\n\n用户喜欢简洁的回答\n\n",
    "memory/archive/daily/2026-01-02.md":
      "# 2026-01-02\n\n## 08:00\n\nalready archived morning note\n",
    "memory/archive/projects/alpha/notes.md": "# an older alpha, archived before\n",
    "memory/short-term/current-session.md": "# Current session\n\n正在讨论部署计划\n",
    "memory/short-term/sessions/s-old.md":
      "---\nupdated: 2026-01-10T08:00:00\n---\n# Session s-old\n\nold session about vector indexes\n",
    "memory/short-term/sessions/s-ended.md":
      "---\nended: true\nupdated: 2026-01-12T09:00:00\n---\n# Session s-ended\n\n会话已结束：讨论了缓存策略\n",
    "memory/short-term/sessions/s-live.md":
      "---\nupdated: 2026-01-12T09:30:00\n---\n# Session s-live\n\nstill talking\n",
    "memory/mid-term/projects/alpha/status.md":
      "---\nstatus: done\ntitle: Alpha\nupdated: 2026-01-11\n---\n# Alpha\n\nShipped.\n",
    "memory/mid-term/projects/alpha/tasks.json":
      '[{"id":"1","title":"ship","done":true,"updatedAt":"2026-01-11"}]\n',
    "memory/mid-term/projects/alpha/notes.md":
      "# Alpha notes\n\n## Decisions\n\n- Use SQLite FTS5 for keyword search\n- 向量检索使用 sqlite-vec\n\n## Lessons\n\nBatch embeddings to stay under the rate limit.\n\n## Misc\n\nnot collected\n",
    "memory/mid-term/projects/alpha/assets/diagram.md": "# Diagram\n\nboxes and arrows\n",
    "memory/mid-term/projects/beta/status.md":
      "---\nstatus: cancelled\ntitle: Beta\n---\n# Beta\n\nDropped.\n",
    "memory/mid-term/projects/gamma/status.md": "---\nstatus: active\ntitle: Gamma\n---\n# Gamma\n",
    "memory/long-term/decisions/2026-01-03_use-postgres.md":
      "---\nstatus: superseded\ndate: 2026-01-03\nsuperseded_by: 2026-01-09_use-sqlite.md\n---\n# Use Postgres\n\nWe chose Postgres.\n",
    "memory/long-term/decisions/2026-01-09_use-sqlite.md":
      "---\nstatus: accepted\ndate: 2026-01-09\n---\n# Use SQLite\n\nEmbedded wins.\n",
  };
  for (let day = 1; day <= days; day++) {
    const date = `2026-01-${String(day).padStart(2, "0")}`;
    files[`memory/${date}.md`] = `# ${date}\n\n## 10:00\n\nday ${day} note; 第${day}天的笔记\n`;
  }
  await writeFiles(ws, files);
  await touchAt(ws, "memory/short-term/current-session.md", new Date(2026, 0, 12, 9, 0));
  return ws;
}
