import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/workspace/index.js";
import { tempDir } from "./helpers.js";

describe("writeFileAtomic", () => {
  it("creates parent folders and writes the content", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "a/b/c.md");
    await writeFileAtomic(file, "hello\n");
    expect(await readFile(file, "utf8")).toBe("hello\n");
  });

  it("replaces an existing file and leaves no temp file behind", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "x.md");
    await writeFile(file, "old");
    await writeFileAtomic(file, Buffer.from("new"));
    expect(await readFile(file, "utf8")).toBe("new");
    expect(await readdir(dir)).toEqual(["x.md"]);
  });

  it("never leaves a torn file when writers race", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "race.md");
    const contents = Array.from({ length: 20 }, (_, i) => `${String(i)}`.repeat(10_000));
    await Promise.all(contents.map((c) => writeFileAtomic(file, c)));
    expect(contents).toContain(await readFile(file, "utf8"));
  });
});
