import { mkdir, stat, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isEngramError } from "../../src/errors.js";
import { scanWorkspace } from "../../src/workspace/index.js";
import { tempDir, writeFiles } from "./helpers.js";

describe("scanWorkspace", () => {
  it("finds MEMORY.md and memory/**/*.md with stats, sorted by path", async () => {
    const ws = await tempDir();
    await writeFiles(ws, {
      "MEMORY.md": "# m\n",
      "memory/2026-01-02.md": "# d\n",
      "memory/long-term/b.md": "b",
      "memory/long-term/A.MD": "upper-case extension",
      "memory/notes.txt": "not markdown",
      "README.md": "not memory",
      "engram.config.json": "{}",
      ".engram/state.md": "never",
      "memory/.hidden/x.md": "dot folder",
      "memory/node_modules/y.md": "node_modules",
    });
    const { files, warnings } = await scanWorkspace({ workspace: ws });
    expect(warnings).toEqual([]);
    expect(files.map((f) => f.path)).toEqual([
      "MEMORY.md",
      "memory/2026-01-02.md",
      "memory/long-term/A.MD",
      "memory/long-term/b.md",
    ]);
    const first = files[0];
    const st = await stat(path.join(ws, "MEMORY.md"));
    expect(first).toEqual({
      path: "MEMORY.md",
      absPath: path.join(ws, "MEMORY.md"),
      mtimeMs: Math.floor(st.mtimeMs),
      size: 4,
    });
  });

  it("is fine with an empty workspace", async () => {
    const ws = await tempDir();
    expect(await scanWorkspace({ workspace: ws })).toEqual({ files: [], warnings: [] });
  });

  it("refuses a missing workspace", async () => {
    const ws = await tempDir();
    const error = await scanWorkspace({ workspace: path.join(ws, "nope") }).catch(
      (e: unknown) => e,
    );
    expect(isEngramError(error, "WORKSPACE_MISSING")).toBe(true);
  });

  it("ignores symbolic links to files and folders", async () => {
    const ws = await tempDir();
    const outside = await tempDir();
    await writeFiles(outside, { "secret.md": "s", "dir/inner.md": "i" });
    await writeFiles(ws, { "memory/real.md": "r" });
    await symlink(path.join(outside, "secret.md"), path.join(ws, "memory/link.md"));
    await symlink(path.join(outside, "dir"), path.join(ws, "memory/linked-dir"));
    await symlink(path.join(outside, "secret.md"), path.join(ws, "MEMORY.md"));
    const { files } = await scanWorkspace({ workspace: ws });
    expect(files.map((f) => f.path)).toEqual(["memory/real.md"]);
  });

  it("ignores a symlinked memory/ folder", async () => {
    const ws = await tempDir();
    const outside = await tempDir();
    await writeFiles(outside, { "a.md": "a" });
    await symlink(outside, path.join(ws, "memory"));
    expect((await scanWorkspace({ workspace: ws })).files).toEqual([]);
  });

  it("adds extraPaths: folders recursively, .md files, absolute keys outside the workspace", async () => {
    const ws = await tempDir();
    const outside = await tempDir();
    await writeFiles(ws, {
      "docs/guide.md": "g",
      "docs/deep/er.md": "e",
      "docs/x.txt": "x",
      "single.md": "s",
    });
    await writeFiles(outside, {
      "notes/n.md": "n",
      "notes/.git/skip.md": "no",
      "one.md": "o",
      "one.txt": "t",
    });
    const { files, warnings } = await scanWorkspace({
      workspace: ws,
      extraPaths: [
        "docs",
        "single.md",
        path.join(outside, "notes"),
        path.join(outside, "one.md"),
        path.join(outside, "one.txt"),
        "missing-folder",
      ],
    });
    const posixOutside = outside.split(path.sep).join("/");
    expect(files.map((f) => f.path)).toEqual(
      [
        `${posixOutside}/notes/n.md`,
        `${posixOutside}/one.md`,
        "docs/deep/er.md",
        "docs/guide.md",
        "single.md",
      ].sort(),
    );
    expect(files.find((f) => f.path === "docs/guide.md")?.absPath).toBe(
      path.join(ws, "docs/guide.md"),
    );
    expect(warnings).toHaveLength(2);
    expect(warnings.join("\n")).toContain("missing-folder");
    expect(warnings.join("\n")).toContain("one.txt");
  });

  it("lists a file reached twice once, and never enters .engram", async () => {
    const ws = await tempDir();
    await writeFiles(ws, { "memory/a.md": "a", "memory/sub/b.md": "b", ".engram/x.md": "x" });
    const { files, warnings } = await scanWorkspace({
      workspace: ws,
      extraPaths: ["memory", "memory/sub", path.join(ws, "memory/a.md"), ".", ".engram"],
    });
    expect(files.map((f) => f.path)).toEqual(["memory/a.md", "memory/sub/b.md"]);
    expect(warnings).toHaveLength(1); // .engram named as an extraPath
  });

  it("warns about a symlinked extraPath and skips it", async () => {
    const ws = await tempDir();
    const outside = await tempDir();
    await writeFiles(outside, { "n.md": "n" });
    await symlink(outside, path.join(ws, "linked"));
    const { files, warnings } = await scanWorkspace({ workspace: ws, extraPaths: ["linked"] });
    expect(files).toEqual([]);
    expect(warnings[0]).toContain("symbolic link");
  });

  it("scans many files", async () => {
    const ws = await tempDir();
    const files: Record<string, string> = {};
    for (let d = 0; d < 10; d++) for (let f = 0; f < 100; f++) files[`memory/d${d}/f${f}.md`] = "x";
    await writeFiles(ws, files);
    await mkdir(path.join(ws, "memory/empty"));
    const result = await scanWorkspace({ workspace: ws });
    expect(result.files).toHaveLength(1000);
    expect(new Set(result.files.map((f) => f.path)).size).toBe(1000);
  });
});
