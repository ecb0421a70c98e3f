import { describe, expect, it } from "vitest";
import { matchExpression } from "../src/fulltext.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

describe("FTS5 match expressions", () => {
  it("ORs the unique, non-empty terms, each quoted", () => {
    expect(matchExpression(["deploy", "用户", "deploy", ""])).toBe('"deploy" OR "用户"');
    expect(matchExpression(['say"hi'])).toBe('"say""hi"');
    expect(matchExpression([])).toBeUndefined();
    expect(matchExpression([""])).toBeUndefined();
  });

  it("query terms that look like FTS5 syntax are taken literally", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({
      upserts: [
        upsert("a.md", [
          [1, ["and", "or", "not", "near"]],
          [2, ["other"]],
        ]),
      ],
    });
    for (const term of ['"', "AND", "NOT", "NEAR(", "col:x", "*", "-", "(", "^x"]) {
      await expect(store.searchText([term, "missing"], 5)).resolves.toBeInstanceOf(Array);
    }
    expect((await store.searchText(["not"], 5)).map((hit) => hit.chunk.startLine)).toEqual([1]);
  });

  it("indexes terms as given: Latin with diacritics and digits are never folded or split", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: [upsert("a.md", [[1, ["café", "naïve", "gpt4", "2026"]]])] });
    expect(await store.searchText(["cafe"], 5)).toEqual([]);
    expect(await store.searchText(["gpt"], 5)).toEqual([]);
    for (const term of ["café", "naïve", "gpt4", "2026"]) {
      expect(await store.searchText([term], 5)).toHaveLength(1);
    }
  });
});

describe("terms FTS5 weighs at zero (in half the rows or more)", () => {
  // 40 chunks: "common" in all, "half" in 20, "rare" in 3; chunk i also holds a unique term.
  const corpus = () =>
    upsert(
      "c.md",
      Array.from({ length: 40 }, (_, i): [number, string[]] => [
        i + 1,
        ["common", `only${i}`, ...(i < 20 ? ["half"] : []), ...(i % 13 === 0 ? ["rare"] : [])],
      ]),
    );

  it("are left out only when the other terms still fill k: the top k is unchanged", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: [corpus()] });
    const withCommon = await store.searchText(["rare", "only5", "common", "half"], 4);
    const without = await store.searchText(["rare", "only5"], 4);
    expect(withCommon.map((h) => h.chunk.startLine)).toEqual(without.map((h) => h.chunk.startLine));
  });

  it("still match when nothing else would fill k (OR semantics hold)", async () => {
    const store = await temp.open({ path: ":memory:" });
    await store.write({ upserts: [corpus()] });
    expect(await store.searchText(["common"], 100)).toHaveLength(40);
    expect(await store.searchText(["rare", "half"], 100)).toHaveLength(22);
    expect(await store.searchText(["half", "missing"], 5)).toHaveLength(5);
  });
});
