// Qdrant-specific behaviour beyond the conformance kit, against a real server (QDRANT_URL).
import { storeUpsert as upsert } from "@engram/core/testing";
import { describe, expect, it } from "vitest";
import { qdrantStore } from "../src/index.js";
import { QDRANT_URL, useCollections, warnSkipped } from "./helpers.js";

warnSkipped("integration tests");

const where = (hits: Array<{ chunk: { path: string; startLine: number } }>) =>
  hits.map((hit) => `${hit.chunk.path}:${hit.chunk.startLine}`);

describe.skipIf(!QDRANT_URL)(
  `store-qdrant against a real Qdrant${QDRANT_URL ? "" : " — SKIPPED: set QDRANT_URL to run"}`,
  () => {
    const collections = useCollections();

    it("writes in batches of batchSize and replaces a file's chunks", async () => {
      const store = collections.store("batches", { batchSize: 3 });
      await store.init();
      const many = upsert(
        "memory/long-term/多.md",
        Array.from({ length: 10 }, (_, i): [number, string[]] => [i * 3 + 1, ["批量", `t${i}`]]),
      );
      await store.write({ upserts: [many] });
      expect(await store.getChunks(many.file.path)).toHaveLength(10);
      const fewer = upsert(many.file.path, [
        [1, ["批量", "t0"]],
        [40, ["新"]],
      ]);
      await store.write({ upserts: [fewer] });
      expect((await store.getChunks(many.file.path)).map((c) => c.startLine)).toEqual([1, 40]);
      expect(await store.stats()).toMatchObject({ files: 1, chunks: 2 });
      expect(
        where(await store.searchText(["批量"], 10, { pathPrefix: "memory/long-term/多" })),
      ).toEqual(["memory/long-term/多.md:1"]);
      await store.close();
    });

    it("refuses to reopen a collection with other BM25 settings while it holds chunks", async () => {
      const first = collections.store("bm25");
      await first.init();
      await first.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
      await first.close();
      const other = collections.store("bm25", { bm25: { avgTerms: 64 } });
      await expect(other.init()).rejects.toMatchObject({ code: "CONFIG_INVALID" });
      await other.close();
    });

    it("names the collection after the workspace, and drop removes both collections", async () => {
      const name = collections.name("factory");
      const open = async () => {
        const store = await qdrantStore({ url: QDRANT_URL, collection: name })({
          workspace: "/tmp/ws",
          indexDir: "/tmp/ws/.engram",
        });
        await store.init();
        return store;
      };
      const store = await open();
      await store.setMeta("engram.identity", "x");
      await store.close();
      const again = await open();
      expect(await again.getMeta("engram.identity")).toBe("x");
      await (again as Awaited<ReturnType<typeof open>> & { drop(): Promise<void> }).drop();
      await again.close();
      const fresh = await open();
      expect(await fresh.getMeta("engram.identity")).toBeUndefined();
      await fresh.close();
    });
  },
);
