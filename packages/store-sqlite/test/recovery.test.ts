import { copyFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("deleting the index is safe", () => {
  it("an index file deleted between opens gives an empty store that works", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const first = await temp.open({ path });
    await first.reset({ dims: 4 });
    await first.setMeta("engram.identity", "old");
    await first.write({ upserts: [upsert("a.md", [[1, ["alpha"], [1, 0, 0, 0]]])] });
    await first.close();
    await rm(path);

    const second = await temp.open({ path });
    expect(await second.stats()).toMatchObject({ files: 0, chunks: 0, vectors: 0 });
    expect(await second.getMeta("engram.identity")).toBeUndefined();
    expect(await second.dims()).toBeNull();
    await second.reset({ dims: 4 });
    await second.write({ upserts: [upsert("b.md", [[1, ["beta"], [0, 1, 0, 0]]])] });
    expect((await second.searchText(["beta"], 5)).map((hit) => hit.chunk.path)).toEqual(["b.md"]);
    expect(
      (await second.searchVector(Float32Array.from([0, 1, 0, 0]), 5)).map((hit) => hit.chunk.path),
    ).toEqual(["b.md"]);
  });

  it("a stale -wal left behind by a deleted index is not replayed into the new one", async () => {
    const dir = await temp.dir();
    const path = join(dir, "index.sqlite");
    const first = await temp.open({ path });
    await first.write({ upserts: [upsert("old.md", [[1, ["old"]]])] });
    expect(await exists(`${path}-wal`)).toBe(true); // committed, not yet checkpointed
    await copyFile(`${path}-wal`, join(dir, "saved-wal"));
    await first.close();
    await rm(path);
    await copyFile(join(dir, "saved-wal"), `${path}-wal`);

    const second = await temp.open({ path });
    expect(await second.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect(await second.searchText(["old"], 5)).toEqual([]);
    await second.write({ upserts: [upsert("new.md", [[1, ["new"]]])] });
    expect(await second.listFiles()).toHaveLength(1);
  });
});
