import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readMemoryFile, readUtf8 } from "../../src/workspace/index.js";
import { tempDir, writeFiles } from "./helpers.js";

describe("readUtf8", () => {
  it("returns text without BOM and the stored bytes", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "a.md");
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo 世界\n")]);
    await writeFile(file, bytes);
    const result = await readUtf8(file, { maxBytes: 1024 });
    expect(result.text).toBe("héllo 世界\n");
    expect(result.bytes.equals(bytes)).toBe(true);
  });

  it("refuses invalid UTF-8 with a hint", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "latin1.md");
    await writeFile(file, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café" in Latin-1
    await expect(readUtf8(file, { maxBytes: 1024 })).rejects.toMatchObject({
      code: "INVALID_ENCODING",
      hint: expect.stringContaining("UTF-8"),
    });
  });

  it("refuses a file over the limit without loading it", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "big.md");
    const handle = await open(file, "w");
    await handle.truncate(50 * 1024 * 1024); // sparse 50 MB: cheap to make, would be slow to read
    await handle.close();
    const before = process.memoryUsage().arrayBuffers;
    await expect(readUtf8(file, { maxBytes: 1024 * 1024 })).rejects.toMatchObject({
      code: "FILE_TOO_LARGE",
      hint: expect.stringMatching(/sync\.maxFileBytes.*1048576/),
    });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(20 * 1024 * 1024);
  });

  it("accepts a file exactly at the limit", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "edge.md");
    await writeFile(file, "12345");
    expect((await readUtf8(file, { maxBytes: 5 })).text).toBe("12345");
  });

  it("rethrows ENOENT unchanged (the indexer treats it as a deleted file)", async () => {
    const dir = await tempDir();
    await expect(readUtf8(path.join(dir, "gone.md"), { maxBytes: 10 })).rejects.toMatchObject({
      code: "ENOENT",
    });
  });
});

describe("readMemoryFile", () => {
  async function ws(): Promise<string> {
    const dir = await tempDir();
    await writeFiles(dir, {
      "MEMORY.md": "line 1\nline 2\r\nline 3\nline 4\n",
      "memory/empty.md": "",
      "memory/no-newline.md": "a\nb",
      "memory/bad.md": Buffer.from([0xff, 0xfe, 0x00]),
      ".env": "SECRET=1",
    });
    return dir;
  }

  it("reads the whole file by default", async () => {
    const dir = await ws();
    expect(await readMemoryFile(dir, "MEMORY.md")).toEqual({
      path: "MEMORY.md",
      text: "line 1\nline 2\nline 3\nline 4",
      startLine: 1,
      endLine: 4,
      totalLines: 4,
    });
    expect(await readMemoryFile(dir, "memory/no-newline.md")).toMatchObject({
      text: "a\nb",
      endLine: 2,
      totalLines: 2,
    });
    expect(await readMemoryFile(dir, "memory/empty.md")).toMatchObject({
      text: "",
      startLine: 1,
      endLine: 0,
      totalLines: 0,
    });
  });

  it("reads a line range, clipped to the end", async () => {
    const dir = await ws();
    expect(await readMemoryFile(dir, "MEMORY.md", { from: 2, lines: 2 })).toMatchObject({
      text: "line 2\nline 3",
      startLine: 2,
      endLine: 3,
    });
    expect(await readMemoryFile(dir, "MEMORY.md", { from: 3 })).toMatchObject({
      text: "line 3\nline 4",
      endLine: 4,
    });
    expect(await readMemoryFile(dir, "MEMORY.md", { from: 4, lines: 10 })).toMatchObject({
      text: "line 4",
      startLine: 4,
      endLine: 4,
    });
  });

  it("returns nothing, not an error, past the end", async () => {
    const dir = await ws();
    expect(await readMemoryFile(dir, "MEMORY.md", { from: 9, lines: 3 })).toEqual({
      path: "MEMORY.md",
      text: "",
      startLine: 9,
      endLine: 8,
      totalLines: 4,
    });
  });

  it("refuses bad numbers", async () => {
    const dir = await ws();
    for (const options of [
      { from: 0 },
      { from: -1 },
      { from: 1.5 },
      { lines: 0 },
      { lines: -2 },
      { lines: Number.NaN },
    ]) {
      await expect(
        readMemoryFile(dir, "MEMORY.md", options),
        JSON.stringify(options),
      ).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
      });
    }
  });

  it("goes through the sandbox and the encoding and size checks", async () => {
    const dir = await ws();
    await expect(readMemoryFile(dir, ".env")).rejects.toMatchObject({ code: "PATH_NOT_ALLOWED" });
    await expect(readMemoryFile(dir, "../x.md")).rejects.toMatchObject({
      code: "PATH_OUTSIDE_WORKSPACE",
    });
    await expect(readMemoryFile(dir, "memory/missing.md")).rejects.toMatchObject({
      code: "FILE_NOT_FOUND",
    });
    await expect(readMemoryFile(dir, "memory/bad.md")).rejects.toMatchObject({
      code: "INVALID_ENCODING",
    });
    await expect(readMemoryFile(dir, "MEMORY.md", { maxBytes: 4 })).rejects.toMatchObject({
      code: "FILE_TOO_LARGE",
    });
  });

  it("reads from an extraPath", async () => {
    const dir = await ws();
    await writeFiles(dir, { "docs/a.md": "doc" });
    expect((await readMemoryFile(dir, "docs/a.md", { extraPaths: ["docs"] })).text).toBe("doc");
  });
});
