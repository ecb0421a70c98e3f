import { describe, expect, it } from "vitest";
import type { ChunkRecord, FileRecord } from "../driver/index.js";
import { chunkRecord, fileRecord, type Harness, locations } from "./conformance-fixtures.js";

const FILES = 100;
const CHUNKS_PER_FILE = 100;
const DIMS = 8;

/** A vector per chunk, never parallel to the target's [0, …, 0, 1]. */
function vectorOf(i: number): number[] {
  return [Math.cos(i), Math.sin(i), Math.cos(2 * i), Math.sin(2 * i), 2, 1 + (i % 7), 0.5, 0];
}

/** A 10,000-chunk batch: one call, one commit, all searchable. */
export function scaleSection(_name: string, h: Harness): void {
  describe("scale", () => {
    it(`writes a ${FILES * CHUNKS_PER_FILE}-chunk batch and finds its chunks`, async () => {
      const store = await h.store();
      const vectors = store.capabilities.vector;
      if (vectors) await store.reset({ dims: DIMS });
      const upserts: Array<{ file: FileRecord; chunks: ChunkRecord[] }> = [];
      for (let f = 0; f < FILES; f++) {
        const file = fileRecord(`bulk/file-${String(f).padStart(3, "0")}.md`, {
          tier: f % 2 === 0 ? "long" : "short",
        });
        const chunks: ChunkRecord[] = [];
        for (let c = 0; c < CHUNKS_PER_FILE; c++) {
          const i = f * CHUNKS_PER_FILE + c;
          const target = f === 42 && c === 17;
          chunks.push(
            chunkRecord(file, 1 + c * 5, ["common", `file${f}`, `chunk${f}x${c}`, "记忆"], {
              endLine: 5 + c * 5,
              embedding: vectors ? (target ? [0, 0, 0, 0, 0, 0, 0, 1] : vectorOf(i)) : null,
            }),
          );
        }
        upserts.push({ file, chunks });
      }
      await store.write({ upserts });

      expect(await store.stats()).toMatchObject({
        files: FILES,
        chunks: FILES * CHUNKS_PER_FILE,
        vectors: vectors ? FILES * CHUNKS_PER_FILE : 0,
      });
      expect(locations(await store.searchText(["chunk42x17"], 10))).toEqual([
        "bulk/file-042.md:86",
      ]);
      expect(await store.searchText(["common"], 25)).toHaveLength(25);
      expect(await store.searchText(["file7"], 1000)).toHaveLength(CHUNKS_PER_FILE);
      expect(
        await store.searchText(["common"], 50, { tiers: ["short"], pathPrefix: "bulk/file-00" }),
      ).toHaveLength(50);
      if (vectors) {
        const target = Float32Array.from([0, 0, 0, 0, 0, 0, 0, 1]);
        const hits = await store.searchVector(target, 5);
        expect(locations(hits)[0]).toBe("bulk/file-042.md:86");
        expect(hits[0]?.score).toBeCloseTo(1, 5);
        expect(await store.searchVector(target, 3, { pathPrefix: "bulk/file-042" })).toHaveLength(
          3,
        );
      }

      await store.write({ deletes: upserts.slice(0, FILES / 2).map((u) => u.file.path) });
      expect(await store.stats()).toMatchObject({
        files: FILES / 2,
        chunks: (FILES / 2) * CHUNKS_PER_FILE,
      });
      expect(await store.searchText(["chunk42x17"], 10)).toEqual([]);
    }, 180_000);
  });
}
