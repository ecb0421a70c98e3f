import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createSqliteStore } from "@engram/store-sqlite";
import { expect } from "vitest";
import { ok } from "./cli.js";

const made: string[] = [];

/** A fresh temp folder (removed by {@link removeTemps}). */
export async function tempDir(prefix = "engram-reliability-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export async function removeTemps(): Promise<void> {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
}

/** Write files (workspace-relative path → content). */
export async function writeFiles(
  root: string,
  files: Record<string, string | Buffer>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/**
 * Every entry below `root` except `.engram/`: `path → "<sha256> <mtime>"` for files (the mtime in
 * whole microseconds: what `utimes` can set), `dir` for folders, `link` for symbolic links.
 * `mtimes: false` leaves times out.
 */
export async function tree(
  root: string,
  options: { mtimes?: boolean; skip?: (rel: string) => boolean } = {},
): Promise<Record<string, string>> {
  const out = new Map<string, string>();
  const visit = async (rel: string) => {
    for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (child === ".engram" || options.skip?.(child)) continue;
      const abs = join(root, child);
      const info = await lstat(abs);
      if (info.isDirectory()) {
        out.set(`${child}/`, "dir");
        await visit(child);
      } else if (info.isSymbolicLink()) {
        out.set(child, "link");
      } else {
        const sha = createHash("sha256")
          .update(await readFile(abs))
          .digest("hex");
        out.set(child, options.mtimes === false ? sha : `${sha} ${microseconds(abs)}`);
      }
    }
  };
  await visit("");
  return Object.fromEntries([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A file's modification time in whole microseconds (from the nanoseconds the kernel keeps). */
function microseconds(abs: string): string {
  return String(statSync(abs, { bigint: true }).mtimeNs / 1000n);
}

/** What the index holds: files (path, hash, size) and chunks (id, lines, text), sorted. */
export interface IndexDump {
  files: string[];
  chunks: string[];
}

/** Read the SQLite index of `ws` (through the store, as engram reads it). */
export async function dumpIndex(ws: string): Promise<IndexDump> {
  const store = createSqliteStore({ path: join(ws, ".engram", "index.sqlite") });
  await store.init();
  try {
    const files = await store.listFiles();
    const chunks: string[] = [];
    for (const f of files) {
      for (const c of await store.getChunks(f.path)) {
        chunks.push(`${c.id} ${c.path}:${c.startLine}-${c.endLine} ${c.text}`);
      }
    }
    return {
      files: files.map((f) => `${f.path} ${f.hash} ${f.size} ${f.tier} ${f.source}`).sort(),
      chunks: chunks.sort(),
    };
  } finally {
    await store.close();
  }
}

/**
 * The index of `ws` equals one built from scratch from the same files: the files are copied
 * (without `.engram/`) to a fresh folder, `engram sync` indexes them there, both are compared.
 */
export async function expectIndexEqualsFreshBuild(ws: string): Promise<IndexDump> {
  const fresh = await tempDir("engram-fresh-");
  await cp(ws, fresh, {
    recursive: true,
    preserveTimestamps: true,
    filter: (src) => !src.split(/[\\/]/).includes(".engram"),
  });
  await ok(["sync", "-w", fresh]);
  const [mine, theirs] = await Promise.all([dumpIndex(ws), dumpIndex(fresh)]);
  expect(mine.files).toEqual(theirs.files);
  expect(mine.chunks).toEqual(theirs.chunks);
  return mine;
}
