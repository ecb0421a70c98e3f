import { describe, expect, it } from "vitest";
import { fileWithChunks, type Harness, locations, stored } from "./conformance-fixtures.js";

/** Data survives `close()` and a new instance over the same location. */
export function persistenceSection(name: string, h: Harness): void {
  describe("persistence", () => {
    it("files, chunks, meta, dims, vectors and cache survive reopening", async (context) => {
      const first = await h.store();
      if (!first.capabilities.persistent)
        context.skip(`${name} does not declare capabilities.persistent`);
      const vectors = first.capabilities.vector;
      if (vectors) await first.reset({ dims: 4 });
      const a = fileWithChunks("MEMORY.md", [
        [
          1,
          ["用户", "偏好"],
          {
            headings: ["记忆"],
            text: "用户偏好：深色模式",
            embedding: vectors ? [1, 0, 0, 0] : null,
          },
        ],
        [4, ["deploy"], { embedding: vectors ? [0, 1, 0, 0] : null }],
      ]);
      const b = fileWithChunks("sessions/x.jsonl", [[1, ["chat"]]], {
        source: "sessions",
        tier: "short",
      });
      await first.write({ upserts: [a, b] });
      await first.setMeta("engram.identity", '{"format":1}');
      await first.keyValue?.set([["key", Uint8Array.from([5, 1])]]);
      const before = await first.stats();
      await first.close();

      const second = await h.reopen();
      expect(await second.getMeta("engram.identity")).toBe('{"format":1}');
      expect(await second.dims()).toBe(vectors ? 4 : null);
      expect(await second.getFile("MEMORY.md")).toEqual(a.file);
      expect(await second.listFiles({ source: "sessions" })).toEqual([b.file]);
      expect(await second.getChunks("MEMORY.md")).toEqual(a.chunks.map(stored));
      expect(await second.stats()).toMatchObject({
        files: before.files,
        chunks: before.chunks,
        vectors: before.vectors,
      });
      expect(locations(await second.searchText(["偏好"], 5))).toEqual(["MEMORY.md:1"]);
      if (vectors) {
        expect(locations(await second.searchVector(Float32Array.from([0, 1, 0, 0]), 1))).toEqual([
          "MEMORY.md:4",
        ]);
      }
      if (second.keyValue) {
        expect(await second.keyValue.count("")).toBe(1);
        expect(Array.from((await second.keyValue.get(["key"])).get("key") ?? [])).toEqual([5, 1]);
      }
    });

    it("a reopened store takes writes and resets that persist too", async (context) => {
      const first = await h.store();
      if (!first.capabilities.persistent)
        context.skip(`${name} does not declare capabilities.persistent`);
      await first.write({ upserts: [fileWithChunks("a.md", [[1, ["alpha"]]])] });
      await first.close();

      const second = await h.reopen();
      const b = fileWithChunks("b.md", [[1, ["beta"]]]);
      await second.write({ deletes: ["a.md"], upserts: [b] });
      await second.close();

      const third = await h.reopen();
      expect(await third.listFiles()).toEqual([b.file]);
      expect(await third.searchText(["alpha"], 5)).toEqual([]);
      expect(locations(await third.searchText(["beta"], 5))).toEqual(["b.md:1"]);
      const dims = third.capabilities.vector ? 8 : null;
      await third.reset({ dims });
      await third.close();

      const fourth = await h.reopen();
      expect(await fourth.dims()).toBe(dims);
      expect(await fourth.listFiles()).toEqual([]);
    });
  });
}
