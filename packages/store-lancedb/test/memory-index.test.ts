import type { StoreBatch } from "@engram/core/driver";
import { seededRandom } from "@engram/core/testing";
import { describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

// core's withMemoryIndex in front of a real LanceDB store: the copy loads through scanChunks,
// reads hits and exact vectors back by id, and follows writes by the store's generation.

const temp = useTempStores();
const DIMS = 8;
const WORDS = ["deploy", "release", "review", "记忆", "记", "忆", "部署", "café", "the", "v2"];

type Upserts = NonNullable<StoreBatch["upserts"]>;

/** `files` files of 5 chunks over three tiers and two sources; some chunks lack terms or vectors. */
function corpus(seed: number, files = 30, prefix = "notes"): Upserts {
  const next = seededRandom(seed);
  const tiers = ["long", "mid", "short"] as const;
  return Array.from({ length: files }, (_, f) =>
    upsert(
      `${prefix}/${String(f).padStart(3, "0")}.md`,
      Array.from({ length: 5 }, (_, c) => {
        const terms = Array.from(
          { length: c === 4 && f % 7 === 0 ? 0 : 1 + Math.floor(next() * 20) },
          () => WORDS[Math.floor(next() ** 2 * WORDS.length)] as string,
        );
        const vector = c === 3 ? undefined : Array.from({ length: DIMS }, () => next() - 0.4);
        return [c * 10 + 1, terms, vector] as [number, string[], number[] | undefined];
      }),
      { tier: tiers[f % 3], source: f % 5 === 0 ? "sessions" : "memory" },
    ),
  );
}

describe("the generation", () => {
  it("grows by one per write and reset, not for meta or upkeep; another instance's write moves it", async () => {
    const uri = await temp.dir();
    const store = await temp.open({ uri });
    const other = await temp.open({ uri });
    expect(await store.generation?.()).toBe(0);
    await store.reset({ dims: DIMS });
    await store.write({ upserts: corpus(1, 3) });
    expect(await store.generation?.()).toBe(2);
    await store.write({ upserts: corpus(2, 3), deletes: ["notes/000.md"] });
    await store.setMeta("engram.identity", "x");
    await store.optimize();
    expect(await store.generation?.()).toBe(3);
    expect(await other.generation?.()).toBe(3);
    await other.write({ deletes: ["notes/001.md"] });
    expect(await store.generation?.()).toBe(4);
  });
});
