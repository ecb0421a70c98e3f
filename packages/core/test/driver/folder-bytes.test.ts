import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { folderBytes } from "../../src/driver/index.js";

describe("folderBytes", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("sums the files at every depth, and is 0 for a folder that does not exist", async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-folder-bytes-"));
    await mkdir(join(dir, "表", "_indices"), { recursive: true });
    await writeFile(join(dir, "a.lance"), Buffer.alloc(10));
    await writeFile(join(dir, "表", "_indices", "记忆.idx"), "中文"); // 6 bytes of UTF-8
    expect(await folderBytes(dir)).toBe(16);
    expect(await folderBytes(join(dir, "missing"))).toBe(0);
  });
});
