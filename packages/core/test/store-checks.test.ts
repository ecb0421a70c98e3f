import { describe, expect, it } from "vitest";
import { assertUniqueChunkIds } from "../src/driver/index.js";
import { storeUpsert } from "../src/testing/index.js";

describe("assertUniqueChunkIds", () => {
  it("refuses two chunks with one id in a write, naming the id and its file", () => {
    const a = storeUpsert("a.md", [[1, ["x"]]]);
    const b = storeUpsert("b.md", [[1, ["y"]]]);
    expect(() => assertUniqueChunkIds([...a.chunks, ...b.chunks])).not.toThrow();
    const id = a.chunks[0]?.id ?? "";
    expect(() => assertUniqueChunkIds([...a.chunks, ...a.chunks])).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining(`${id} (a.md) appears twice`),
      }),
    );
  });
});
