import { createMemory, type MemoryStatus, type SearchResponse } from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * An app embeds the workspace with its own embedder; the `engram` CLI, which does not have that
 * embedder, then searches and writes there (issue 20, item 3). The CLI must keep the app's vectors,
 * search by keywords while saying whose vectors they are, and leave only its own writes for the
 * app's next sync to embed.
 */
describe("a CLI without the index's provider", () => {
  let ws: string;
  /** The app's own embedder (provider id `acme`), counting the texts it embeds. */
  const appEmbedder = () => {
    const inner = createHashingEmbedder({ dims: 24, model: "acme-embed-2" });
    const embedder = {
      id: "acme",
      model: inner.model,
      dims: inner.dims,
      maxBatchSize: inner.maxBatchSize,
      texts: 0,
      embedQuery: (text: string) => inner.embedQuery(text),
      embedBatch: (batch: readonly string[]) => {
        embedder.texts += batch.length;
        return inner.embedBatch(batch);
      },
    };
    return embedder;
  };
  const app = async (embedder: ReturnType<typeof appEmbedder>) =>
    createMemory({ workspace: ws, store: sqliteStore(), embedder });
  const cli = async <T>(...args: string[]): Promise<T> => {
    const { code, stdout, stderr } = await engram([...args, "--json", "--workspace", ws]);
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout) as T;
  };

  beforeEach(async () => {
    ws = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`memory/notes/n${i}.md`] = `# N${i}\n\nrelease train ${i}\n`;
    await writeFiles(ws, files);
  });
  afterEach(() => removeDir(ws));

  it("keeps the app's vectors, says whose they are, and owes only what it wrote", async () => {
    const first = appEmbedder();
    const memory = await app(first);
    await memory.sync();
    await memory.close();

    const response = await cli<SearchResponse>("search", "release train 7");
    expect(response.degraded).toBe(true);
    expect(response.degradedReason).toContain("acme/acme-embed-2/24");
    expect(response.degradedReason).toContain("not available here");
    expect(response.results[0]?.path).toBe("memory/notes/n7.md");
    const status = await cli<MemoryStatus>("status");
    expect(status.store).toMatchObject({ chunks: 12, vectors: 12 });
    expect(status.index.rebuildNeeded).toEqual([]);
    expect(status.degradedReason).toContain("acme");

    // A write from the CLI is keyword-searchable now and owes its vectors to the app.
    await cli("add", "the quetzal release train leaves Friday");
    expect((await cli<SearchResponse>("search", "quetzal")).results[0]?.snippet).toContain(
      "quetzal",
    );
    const after = await cli<MemoryStatus>("status");
    expect(after.store.vectors).toBe(12);
    expect(after.vectorsPending).toBe(1);

    // The app's next sync embeds only that file.
    const second = appEmbedder();
    const again = await app(second);
    const report = await again.sync();
    expect(report?.rebuilt).toBe(false);
    expect(second.texts).toBe(1);
    expect(await again.store.stats()).toMatchObject({ chunks: 13, vectors: 13 });
    await again.close();
  });
});
