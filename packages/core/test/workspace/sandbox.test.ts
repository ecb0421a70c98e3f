import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { EngramErrorCode } from "../../src/errors.js";
import { resolveMemoryPath } from "../../src/workspace/index.js";
import { tempDir, writeFiles } from "./helpers.js";

let ws: string;
let outside: string;

beforeEach(async () => {
  ws = await tempDir();
  outside = await tempDir("engram-outside-");
  await writeFiles(ws, {
    "MEMORY.md": "# m",
    "memory/2026-01-02.md": "# d",
    "memory/long-term/x.md": "x",
    "memory/.hidden/h.md": "h",
    "memory/node_modules/n.md": "n",
    "memory/notes.txt": "txt",
    "engram.config.json": "{}",
    ".env": "SECRET=1",
    ".engram/index.sqlite": "db",
    ".engram/readme.md": "state",
    "notes.txt": "n",
    "README.md": "not memory",
    "docs/guide.md": "g",
    "docs/.private/p.md": "p",
  });
  await writeFiles(outside, { "secret.md": "s", "notes/n.md": "n", "dir/inner.md": "i" });
});

async function refusal(
  requested: string,
  extraPaths: string[] = [],
): Promise<EngramErrorCode | "ok"> {
  try {
    await resolveMemoryPath(ws, requested, { extraPaths });
    return "ok";
  } catch (error) {
    return (error as { code: EngramErrorCode }).code;
  }
}

describe("resolveMemoryPath", () => {
  it("allows memory files, relative or absolute, and returns the index key", async () => {
    expect(await resolveMemoryPath(ws, "MEMORY.md")).toEqual({
      path: "MEMORY.md",
      absPath: path.join(ws, "MEMORY.md"),
    });
    expect((await resolveMemoryPath(ws, "memory/2026-01-02.md")).path).toBe("memory/2026-01-02.md");
    expect((await resolveMemoryPath(ws, "./memory/long-term/x.md")).path).toBe(
      "memory/long-term/x.md",
    );
    expect((await resolveMemoryPath(ws, "memory/../MEMORY.md")).path).toBe("MEMORY.md");
    expect((await resolveMemoryPath(ws, path.join(ws, "memory/long-term/x.md"))).path).toBe(
      "memory/long-term/x.md",
    );
  });

  it("allows extraPaths, inside and outside the workspace", async () => {
    const extra = ["docs", path.join(outside, "notes")];
    expect((await resolveMemoryPath(ws, "docs/guide.md", { extraPaths: extra })).path).toBe(
      "docs/guide.md",
    );
    const abs = path.join(outside, "notes/n.md");
    expect(await resolveMemoryPath(ws, abs, { extraPaths: extra })).toEqual({
      path: abs.split(path.sep).join("/"),
      absPath: abs,
    });
    const file = path.join(outside, "secret.md");
    expect((await resolveMemoryPath(ws, file, { extraPaths: [file] })).absPath).toBe(file);
  });

  it("refuses paths outside the workspace and extraPaths", async () => {
    expect(await refusal(path.join(outside, "secret.md"))).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await refusal("/etc/passwd")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await refusal("../x.md")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await refusal("memory/../../x.md")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await refusal(`memory/../../${path.basename(outside)}/secret.md`)).toBe(
      "PATH_OUTSIDE_WORKSPACE",
    );
    expect(await refusal(path.join(outside, "secret.md"), [path.join(outside, "notes")])).toBe(
      "PATH_OUTSIDE_WORKSPACE",
    );
  });

  it("refuses non-memory files inside the workspace", async () => {
    for (const p of [
      "engram.config.json",
      ".env",
      ".engram/index.sqlite",
      ".engram/readme.md",
      "notes.txt",
      "README.md",
      "memory/notes.txt",
      "memory/.hidden/h.md",
      "memory/node_modules/n.md",
      "memory",
      ".",
      "docs/guide.md", // not an extraPath here
    ]) {
      expect(await refusal(p), p).toBe("PATH_NOT_ALLOWED");
    }
    // Even when an extraPath covers them, non-.md, dot-folders and .engram stay closed.
    for (const p of ["engram.config.json", ".env", ".engram/readme.md", "docs/.private/p.md"]) {
      expect(await refusal(p, [".", "docs", ".engram"]), p).toBe("PATH_NOT_ALLOWED");
    }
    expect(await refusal("memory/long-term")).toBe("PATH_NOT_ALLOWED");
  });

  it("reports a missing memory file", async () => {
    expect(await refusal("memory/2020-01-01.md")).toBe("FILE_NOT_FOUND");
    expect(await refusal("memory/nope/deeper.md")).toBe("FILE_NOT_FOUND");
    expect(
      await refusal(path.join(outside, "notes/missing.md"), [path.join(outside, "notes")]),
    ).toBe("FILE_NOT_FOUND");
  });

  it("refuses a symlink inside memory/ that points outside, or inside", async () => {
    await symlink(path.join(outside, "secret.md"), path.join(ws, "memory/link.md"));
    await symlink(path.join(ws, "MEMORY.md"), path.join(ws, "memory/inner-link.md"));
    await symlink(path.join(ws, ".env"), path.join(ws, "memory/env.md"));
    expect(await refusal("memory/link.md")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await refusal("memory/inner-link.md")).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await refusal("memory/env.md")).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses paths through a symlinked folder", async () => {
    await symlink(path.join(outside, "dir"), path.join(ws, "memory/linked-dir"));
    expect(await refusal("memory/linked-dir/inner.md")).toBe("PATH_OUTSIDE_WORKSPACE");
    await mkdir(path.join(ws, "memory/archive"));
    await symlink(outside, path.join(ws, "memory/archive/up"));
    expect(await refusal("memory/archive/up/secret.md")).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses a symlinked extraPath and links below an extraPath", async () => {
    await symlink(path.join(outside, "notes"), path.join(ws, "linked-notes"));
    expect(await refusal("linked-notes/n.md", ["linked-notes"])).toBe("PATH_OUTSIDE_WORKSPACE");
    await symlink(path.join(outside, "secret.md"), path.join(outside, "notes/leak.md"));
    expect(await refusal(path.join(outside, "notes/leak.md"), [path.join(outside, "notes")])).toBe(
      "PATH_OUTSIDE_WORKSPACE",
    );
  });

  it("refuses a symlinked MEMORY.md", async () => {
    const ws2 = await tempDir();
    await symlink(path.join(outside, "secret.md"), path.join(ws2, "MEMORY.md"));
    await expect(resolveMemoryPath(ws2, "MEMORY.md")).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
  });

  it("accepts the workspace through a symlinked spelling", async () => {
    const parent = await tempDir();
    const alias = path.join(parent, "alias");
    await symlink(ws, alias);
    const resolved = await resolveMemoryPath(alias, path.join(alias, "MEMORY.md"));
    expect(resolved.path).toBe("MEMORY.md");
  });

  it("refuses empty paths and NUL bytes", async () => {
    expect(await refusal("")).toBe("INVALID_ARGUMENT");
    expect(await refusal("MEMORY.md\0.txt")).toBe("INVALID_ARGUMENT");
  });
});
