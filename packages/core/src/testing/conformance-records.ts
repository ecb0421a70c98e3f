import { describe, expect, it } from "vitest";
import {
  at,
  byPath,
  chunkRecord,
  expectEngramError,
  fileRecord,
  fileWithChunks,
  type Harness,
  stored,
} from "./conformance-fixtures.js";

/** Lifecycle, meta, and writing and reading files and chunks. */
export function recordsSection(_name: string, h: Harness): void {
  describe("lifecycle", () => {
    it("has a kind and consistent capabilities", async () => {
      const store = await h.store();
      expect(typeof store.kind).toBe("string");
      expect(store.kind.length).toBeGreaterThan(0);
      for (const key of ["vector", "fulltext", "keyValue", "persistent", "atomicWrites"] as const) {
        expect(typeof store.capabilities[key], `capabilities.${key}`).toBe("boolean");
      }
      expect(
        store.keyValue !== undefined,
        "keyValue is present exactly when capabilities.keyValue",
      ).toBe(store.capabilities.keyValue);
    });

    it("init is idempotent and keeps data", async () => {
      const store = await h.store();
      await store.setMeta("k", "v");
      const a = fileWithChunks("a.md", [[1, ["alpha"]]]);
      await store.write({ upserts: [a] });
      await store.init();
      await store.init();
      expect(await store.getMeta("k")).toBe("v");
      expect(await store.getFile("a.md")).toEqual(a.file);
      expect(await store.getChunks("a.md")).toEqual(a.chunks.map(stored));
    });

    it("close is idempotent", async () => {
      const store = await h.store();
      await store.close();
      await expect(store.close()).resolves.toBeUndefined();
    });

    it("an empty store holds nothing and finds nothing", async () => {
      const store = await h.store();
      expect(await store.stats()).toMatchObject({ files: 0, chunks: 0, vectors: 0 });
      expect(await store.listFiles()).toEqual([]);
      expect(await store.listFiles({ source: "memory" })).toEqual([]);
      expect(await store.getFile("MEMORY.md")).toBeUndefined();
      expect(await store.getChunks("MEMORY.md")).toEqual([]);
      expect(await store.getMeta("engram.identity")).toBeUndefined();
      expect(await store.dims()).toBeNull();
      expect(await store.searchText(["anything"], 10)).toEqual([]);
      expect(await store.searchVector(Float32Array.from([1, 0, 0, 0]), 10)).toEqual([]);
    });

    it("answers concurrent reads", async () => {
      const store = await h.store();
      const a = fileWithChunks("a.md", [
        [1, ["alpha", "beta"]],
        [5, ["beta"]],
      ]);
      await store.write({ upserts: [a] });
      const [text, chunks, files, stats, file] = await Promise.all([
        store.searchText(["beta"], 10),
        store.getChunks("a.md"),
        store.listFiles(),
        store.stats(),
        store.getFile("a.md"),
      ]);
      expect(text).toHaveLength(2);
      expect(chunks).toHaveLength(2);
      expect(files).toEqual([a.file]);
      expect(stats).toMatchObject({ files: 1, chunks: 2 });
      expect(file).toEqual(a.file);
    });
  });

  describe("meta", () => {
    it("gets and sets values", async () => {
      const store = await h.store();
      expect(await store.getMeta("missing")).toBeUndefined();
      await store.setMeta("engram.identity", '{"format":1}');
      await store.setMeta("other", "x");
      expect(await store.getMeta("engram.identity")).toBe('{"format":1}');
      await store.setMeta("engram.identity", '{"format":2}');
      expect(await store.getMeta("engram.identity")).toBe('{"format":2}');
      expect(await store.getMeta("other")).toBe("x");
    });

    it("round-trips empty, Unicode and long values exactly", async () => {
      const store = await h.store();
      const long = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => `条目 ${i} ✓`) });
      await store.setMeta("empty", "");
      await store.setMeta("键", "值 — “quoted” 🚀\n second line");
      await store.setMeta("long", long);
      expect(await store.getMeta("empty")).toBe("");
      expect(await store.getMeta("键")).toBe("值 — “quoted” 🚀\n second line");
      expect(await store.getMeta("long")).toBe(long);
    });

    it("getMetas, where offered, answers as getMeta does for each key, the latest values", async (context) => {
      const store = await h.store();
      if (!store.getMetas) return context.skip("the store reads meta key by key only");
      expect(await store.getMetas([])).toEqual(new Map());
      await store.setMeta("a", "1");
      await store.setMeta("空", "");
      expect(await store.getMetas(["a", "空", "missing"])).toEqual(
        new Map([
          ["a", "1"],
          ["空", ""],
        ]),
      );
      await store.setMeta("a", "2");
      expect((await store.getMetas(["a"])).get("a")).toBe("2");
    });
  });

  describe("write and read", () => {
    it("upserts files and lists them, optionally by source", async () => {
      const store = await h.store();
      const a = fileWithChunks("MEMORY.md", [
        [1, ["alpha"]],
        [4, ["beta"]],
      ]);
      const b = fileWithChunks("memory/2026-01-02.md", [[1, ["gamma"]]], { tier: "short" });
      const c = fileWithChunks("sessions/s1.jsonl", [[1, ["delta"]]], {
        source: "sessions",
        tier: "short",
      });
      await store.write({ upserts: [a, b, c] });
      expect(await store.getFile("MEMORY.md")).toEqual(a.file);
      expect(await store.getFile("memory/2026-01-02.md")).toEqual(b.file);
      expect(byPath(await store.listFiles())).toEqual(byPath([a.file, b.file, c.file]));
      expect(byPath(await store.listFiles({ source: "memory" }))).toEqual(byPath([a.file, b.file]));
      expect(await store.listFiles({ source: "sessions" })).toEqual([c.file]);
      expect(await store.listFiles({ source: "nothing-here" })).toEqual([]);
      expect(await store.stats()).toMatchObject({ files: 3, chunks: 4, vectors: 0 });
    });

    it("returns a file's chunks ordered by start line, exactly as written", async () => {
      const store = await h.store();
      const file = fileRecord("memory/long-term/决策.md");
      const chunks = [
        chunkRecord(file, 21, ["late"], {
          endLine: 30,
          headings: ["项目", "决策 / Decisions", "Émoji 🚀"],
          text: "late\r\nwindows line\r\n",
        }),
        chunkRecord(file, 1, ["用户", "偏好"], {
          endLine: 3,
          headings: [],
          text: "# 用户偏好\n\n用户喜欢深色模式。Ünïcödé, e\u0301 (not NFC), emoji 👩‍💻, tab\tand  two spaces  ",
        }),
        chunkRecord(file, 11, ["middle"], {
          endLine: 20,
          headings: ["项目"],
          text: '```ts\nconst x = "quote";\n```',
        }),
      ];
      await store.write({ upserts: [{ file, chunks }] });
      const back = await store.getChunks(file.path);
      expect(back.map((c) => c.startLine)).toEqual([1, 11, 21]);
      expect(back).toEqual([at(chunks, 1), at(chunks, 2), at(chunks, 0)].map(stored));
      expect(await store.getChunks("memory/long-term/other.md")).toEqual([]);
    });

    it("accepts any source string and unusual paths", async () => {
      const store = await h.store();
      const odd = fileWithChunks("notes/with space & ü/日记 #1.md", [[1, ["odd"]]], {
        source: "custom-source",
      });
      const absolute = fileWithChunks("/elsewhere/extra/notes.md", [[1, ["abs"]]], { tier: "mid" });
      await store.write({ upserts: [odd, absolute] });
      expect(await store.getFile(odd.file.path)).toEqual(odd.file);
      expect(await store.getFile(absolute.file.path)).toEqual(absolute.file);
      expect(await store.listFiles({ source: "custom-source" })).toEqual([odd.file]);
      expect(await store.getChunks(odd.file.path)).toEqual(odd.chunks.map(stored));
      expect((await store.searchText(["odd"], 5))[0]?.chunk).toEqual(stored(at(odd.chunks, 0)));
    });

    it("re-upserting a file replaces its chunks", async () => {
      const store = await h.store();
      const first = fileWithChunks("a.md", [
        [1, ["alpha", "shared"]],
        [5, ["alpha"]],
      ]);
      await store.write({ upserts: [first] });
      await store.write({ upserts: [first] });
      expect(await store.stats()).toMatchObject({ files: 1, chunks: 2 });
      const hits = await store.searchText(["alpha"], 10);
      expect(hits.map((hit) => hit.chunk.id).sort()).toEqual(first.chunks.map((c) => c.id).sort());

      const second = fileWithChunks("a.md", [[1, ["beta", "shared"]]], {
        hash: "f".repeat(64),
        size: 7,
      });
      await store.write({ upserts: [second] });
      expect(await store.getFile("a.md")).toEqual(second.file);
      expect(await store.getChunks("a.md")).toEqual(second.chunks.map(stored));
      expect(await store.searchText(["alpha"], 10)).toEqual([]);
      expect((await store.searchText(["shared"], 10)).map((hit) => hit.chunk.id)).toEqual([
        at(second.chunks, 0).id,
      ]);
      expect(await store.stats()).toMatchObject({ files: 1, chunks: 1 });
    });

    it("an upsert without chunks keeps the file and drops its chunks", async () => {
      const store = await h.store();
      await store.write({ upserts: [fileWithChunks("a.md", [[1, ["alpha"]]])] });
      const empty = fileWithChunks("a.md", [], { size: 0 });
      await store.write({ upserts: [empty] });
      expect(await store.getFile("a.md")).toEqual(empty.file);
      expect(await store.getChunks("a.md")).toEqual([]);
      expect(await store.searchText(["alpha"], 10)).toEqual([]);
    });

    it("stores chunks without terms; text search never finds them", async () => {
      const store = await h.store();
      const a = fileWithChunks("a.md", [
        [1, [], { text: "---" }],
        [2, ["word"]],
      ]);
      await store.write({ upserts: [a] });
      expect(await store.getChunks("a.md")).toEqual(a.chunks.map(stored));
      expect((await store.searchText(["word"], 10)).map((hit) => hit.chunk.startLine)).toEqual([2]);
    });

    it("deletes cascade to chunks and leave other files alone", async () => {
      const store = await h.store();
      const a = fileWithChunks("a.md", [
        [1, ["alpha", "both"]],
        [5, ["alpha"]],
      ]);
      const b = fileWithChunks("b.md", [[1, ["beta", "both"]]]);
      await store.write({ upserts: [a, b] });
      await store.write({ deletes: ["a.md", "never-indexed.md"] });
      expect(await store.getFile("a.md")).toBeUndefined();
      expect(await store.getChunks("a.md")).toEqual([]);
      expect(await store.searchText(["alpha"], 10)).toEqual([]);
      expect((await store.searchText(["both"], 10)).map((hit) => hit.chunk.path)).toEqual(["b.md"]);
      expect(await store.getFile("b.md")).toEqual(b.file);
      expect(await store.getChunks("b.md")).toEqual(b.chunks.map(stored));
      expect(await store.listFiles()).toEqual([b.file]);
      expect(await store.stats()).toMatchObject({ files: 1, chunks: 1 });
    });

    it("touches change the modification time only", async () => {
      const store = await h.store();
      const a = fileWithChunks("a.md", [[1, ["alpha"]]], { mtimeMs: 1000 });
      await store.write({ upserts: [a] });
      await store.write({ touches: [{ ...a.file, mtimeMs: 2000 }] });
      expect(await store.getFile("a.md")).toEqual({ ...a.file, mtimeMs: 2000 });
      expect(await store.getChunks("a.md")).toEqual(a.chunks.map(stored));
      expect(await store.searchText(["alpha"], 10)).toHaveLength(1);
    });

    it("a touch of a path that is not indexed creates nothing", async () => {
      const store = await h.store();
      await store.write({ touches: [fileRecord("ghost.md")] });
      expect(await store.getFile("ghost.md")).toBeUndefined();
      expect(await store.listFiles()).toEqual([]);
    });

    it("applies deletes, then upserts, then touches", async () => {
      const store = await h.store();
      const old = fileWithChunks("a.md", [[1, ["old"]]]);
      await store.write({ upserts: [old] });
      const fresh = fileWithChunks("a.md", [[1, ["fresh"]]], { mtimeMs: 5000 });
      await store.write({
        touches: [{ ...fresh.file, mtimeMs: 6000 }],
        upserts: [fresh],
        deletes: ["a.md"],
      });
      expect(await store.getFile("a.md")).toEqual({ ...fresh.file, mtimeMs: 6000 });
      expect(await store.getChunks("a.md")).toEqual(fresh.chunks.map(stored));
      expect(await store.searchText(["old"], 10)).toEqual([]);
    });

    it("an empty batch changes nothing", async () => {
      const store = await h.store();
      const a = fileWithChunks("a.md", [[1, ["alpha"]]]);
      await store.write({ upserts: [a] });
      await store.write({});
      await store.write({ upserts: [], deletes: [], touches: [] });
      expect(await store.listFiles()).toEqual([a.file]);
      expect(await store.getChunks("a.md")).toEqual(a.chunks.map(stored));
    });

    it("refuses a chunk with an embedding while the store has no vector space", async () => {
      const store = await h.store();
      expect(await store.dims()).toBeNull();
      const a = fileWithChunks("a.md", [[1, ["alpha"], { embedding: [1, 0, 0, 0] }]]);
      await expectEngramError(store.write({ upserts: [a] }), "STORE_DIMS_MISMATCH");
      if (store.capabilities.atomicWrites) {
        expect(await store.getFile("a.md")).toBeUndefined();
        expect(await store.stats()).toMatchObject({ files: 0, chunks: 0 });
      }
    });
  });
}
