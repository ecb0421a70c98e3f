import { appendFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { createHashingEmbedder } from "@engram/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileCachedEmbedder } from "../src/embedding-file-cache.js";
import { removeDir, tempDir } from "./helpers.js";

describe("fileCachedEmbedder", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir("engram-emb-cache-");
  });
  afterEach(() => removeDir(dir));

  it("keeps documents and queries apart, answers a later run from the file, ignores a torn record", async () => {
    const inner = createHashingEmbedder({ dims: 16 });
    const first = fileCachedEmbedder(inner, dir);
    const docs = await first.embedBatch(["alpha beta", "gamma", "alpha beta"]);
    const query = await first.embedQuery("alpha beta");
    expect(first.misses).toBe(4); // a text repeated within one batch is computed again
    expect(query).toEqual(docs[0]); // same vector, but cached under its own kind

    const [file] = await readdir(dir);
    const before = (await stat(join(dir, file as string))).size;
    await appendFile(join(dir, file as string), Buffer.alloc(10)); // a write cut short

    const calls = inner.textsEmbedded + inner.queryCalls;
    const second = fileCachedEmbedder(inner, dir);
    expect(await second.embedBatch(["gamma", "alpha beta"])).toEqual([docs[1], docs[0]]);
    expect(await second.embedQuery("alpha beta")).toEqual(query);
    expect(second.hits).toBe(3);
    expect(second.misses).toBe(0);
    expect(inner.textsEmbedded + inner.queryCalls).toBe(calls);
    expect(before % (32 + 16 * 4)).toBe(0);
  });
});
