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
