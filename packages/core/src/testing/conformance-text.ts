import { describe, expect, it } from "vitest";
import type { MemoryStore } from "../driver/index.js";
import {
  at,
  chunkRecord,
  expectDescending,
  fileRecord,
  fileWithChunks,
  type Harness,
  locations,
  stored,
} from "./conformance-fixtures.js";

/**
 * A small corpus. Filler chunks keep every tested term in well under half of the chunks, so BM25's
 * IDF is clearly positive and rankings are meaningful on every implementation.
 */
function corpus() {
  const daily = fileWithChunks(
    "memory/2026-01-01.md",
    [
      [1, ["deploy", "pipeline", "failed", "again"]],
      [5, ["lunch", "with", "the", "team"]],
    ],
    { tier: "short" },
  );
  const memory = fileWithChunks("MEMORY.md", [
    [1, ["user", "prefers", "dark", "mode"]],
    [10, ["deploy", "pipeline", "uses", "github", "actions"]],
  ]);
  const decisions = fileWithChunks("memory/long-term/decisions.md", [
    [1, ["用", "户", "偏", "好", "用户", "偏好", "深", "色", "深色", "模式"]],
    [8, ["zebra", "crossing", "near", "office"]],
  ]);
  const session = fileWithChunks(
    "sessions/2026-01-01-abc.jsonl",
    [[1, ["deploy", "question", "from", "chat"]]],
    {
      source: "sessions",
      tier: "short",
    },
  );
  const status = fileWithChunks(
    "memory/mid-term/projects/x/status.md",
    [[1, ["project", "status", "green", "today"]]],
    { tier: "mid" },
  );
  const archive = fileWithChunks(
    "memory/archive/old.md",
    [[1, ["deploy", "archived", "note", "here"]]],
    {
      tier: "archive",
    },
  );
  const fillerFile = fileRecord("memory/long-term/filler.md");
  const filler = {
    file: fillerFile,
    chunks: Array.from({ length: 14 }, (_, i) =>
      chunkRecord(fillerFile, 1 + i * 10, ["filler", `word${i}`, `other${i}`, "text"]),
    ),
  };
  return { daily, memory, decisions, session, status, archive, filler };
}

async function seeded(h: Harness): Promise<{ store: MemoryStore; c: ReturnType<typeof corpus> }> {
  const store = await h.store();
  const c = corpus();
  await store.write({ upserts: Object.values(c) });
  return { store, c };
}

/** `searchText`: BM25 over analysed terms. */
export function textSearchSection(_name: string, h: Harness): void {
  describe("searchText", () => {
    it("matches chunks holding any one of the terms", async () => {
      const { store } = await seeded(h);
      const hits = await store.searchText(["pipeline", "green", "absent"], 10);
      expect(locations(hits).sort()).toEqual(
        ["MEMORY.md:10", "memory/2026-01-01.md:1", "memory/mid-term/projects/x/status.md:1"].sort(),
      );
    });

    it("ranks chunks holding more of the terms higher", async () => {
      const { store } = await seeded(h);
      const hits = await store.searchText(["deploy", "pipeline", "failed"], 10);
      expect(locations(hits).slice(0, 2)).toEqual(["memory/2026-01-01.md:1", "MEMORY.md:10"]);
      expect(hits).toHaveLength(4);
      expectDescending(hits);
    });

    it("ranks rarer terms higher", async () => {
      const { store } = await seeded(h);
      const hits = await store.searchText(["deploy", "zebra"], 10);
      expect(locations(hits)[0]).toBe("memory/long-term/decisions.md:8");
      expect(hits).toHaveLength(5);
    });

    it("gives positive scores, best first", async () => {
      const { store } = await seeded(h);
      const hits = await store.searchText(["deploy", "pipeline", "user", "filler"], 100);
      expect(hits.length).toBeGreaterThan(5);
      for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
      expectDescending(hits);
    });

    it("returns each hit's chunk as stored", async () => {
      const { store, c } = await seeded(h);
      const hits = await store.searchText(["zebra"], 10);
      expect(hits.map((hit) => hit.chunk)).toEqual([stored(at(c.decisions.chunks, 1))]);
    });

    it("finds Chinese by its analysed terms, indexed as given", async () => {
      const { store } = await seeded(h);
      const hits = await store.searchText(["用", "户", "用户"], 10);
      expect(locations(hits)).toEqual(["memory/long-term/decisions.md:1"]);
      expect(locations(await store.searchText(["偏好"], 10))).toEqual([
        "memory/long-term/decisions.md:1",
      ]);
      // Not a term of any chunk (the chunk holds 用户 and 偏好): the store must not re-tokenise.
      expect(await store.searchText(["用户偏好"], 10)).toEqual([]);
    });

    it("matches whole terms only: no prefixes, no stemming", async () => {
      const { store } = await seeded(h);
      expect(await store.searchText(["deplo"], 10)).toEqual([]);
      expect(await store.searchText(["pipelines"], 10)).toEqual([]);
      expect(await store.searchText(["word1"], 10)).toHaveLength(1);
    });

    it("repeated query terms do not repeat hits", async () => {
      const { store } = await seeded(h);
      const once = await store.searchText(["deploy"], 10);
      const twice = await store.searchText(["deploy", "deploy", "deploy"], 10);
      expect(locations(twice).sort()).toEqual(locations(once).sort());
      expect(new Set(twice.map((hit) => hit.chunk.id)).size).toBe(twice.length);
    });

    it("empty terms and k < 1 give no hits", async () => {
      const { store } = await seeded(h);
      expect(await store.searchText([], 10)).toEqual([]);
      expect(await store.searchText(["deploy"], 0)).toEqual([]);
      expect(await store.searchText(["deploy"], -3)).toEqual([]);
    });

    it("k bounds the hits; a k larger than the store returns every match", async () => {
      const { store } = await seeded(h);
      const all = await store.searchText(["deploy"], 1000);
      expect(all).toHaveLength(4);
      const best = await store.searchText(["deploy", "failed"], 1);
      expect(locations(best)).toEqual(["memory/2026-01-01.md:1"]);
      expect(await store.searchText(["deploy"], 2)).toEqual(all.slice(0, 2));
    });

    it("filters by tier", async () => {
      const { store } = await seeded(h);
      const long = await store.searchText(["deploy"], 10, { tiers: ["long"] });
      expect(locations(long)).toEqual(["MEMORY.md:10"]);
      const active = await store.searchText(["deploy"], 10, { tiers: ["short", "mid", "long"] });
      expect(locations(active).sort()).toEqual(
        ["MEMORY.md:10", "memory/2026-01-01.md:1", "sessions/2026-01-01-abc.jsonl:1"].sort(),
      );
      expect(await store.searchText(["deploy"], 10, { tiers: ["archive"] })).toHaveLength(1);
      expect(await store.searchText(["deploy"], 10, { tiers: [] })).toEqual([]);
    });

    it("filters by source", async () => {
      const { store } = await seeded(h);
      const sessions = await store.searchText(["deploy"], 10, { sources: ["sessions"] });
      expect(locations(sessions)).toEqual(["sessions/2026-01-01-abc.jsonl:1"]);
      expect(await store.searchText(["deploy"], 10, { sources: ["memory"] })).toHaveLength(3);
      expect(await store.searchText(["deploy"], 10, { sources: ["elsewhere"] })).toEqual([]);
    });

    it("filters by path prefix", async () => {
      const { store } = await seeded(h);
      const memoryDir = await store.searchText(["deploy"], 10, { pathPrefix: "memory/" });
      expect(locations(memoryDir).sort()).toEqual([
        "memory/2026-01-01.md:1",
        "memory/archive/old.md:1",
      ]);
      const archive = await store.searchText(["deploy"], 10, { pathPrefix: "memory/archive/" });
      expect(locations(archive)).toEqual(["memory/archive/old.md:1"]);
      expect(await store.searchText(["deploy"], 10, { pathPrefix: "Memory/" })).toEqual([]);
    });

    it("treats the path prefix literally (no wildcards, case-sensitive)", async () => {
      const store = await h.store();
      const paths = [
        "notes/a_b.md",
        "notes/axb.md",
        "notes/100%/x.md",
        "notes/1000/x.md",
        "Notes/a_b.md",
      ];
      await store.write({ upserts: paths.map((path) => fileWithChunks(path, [[1, ["needle"]]])) });
      const under = async (pathPrefix: string) =>
        locations(await store.searchText(["needle"], 10, { pathPrefix })).sort();
      expect(await under("notes/a_")).toEqual(["notes/a_b.md:1"]);
      expect(await under("notes/100%")).toEqual(["notes/100%/x.md:1"]);
      expect(await under("notes/")).toEqual(
        ["notes/1000/x.md:1", "notes/100%/x.md:1", "notes/a_b.md:1", "notes/axb.md:1"].sort(),
      );
      expect(await under("Notes/")).toEqual(["Notes/a_b.md:1"]);
    });

    it("combines filters", async () => {
      const { store } = await seeded(h);
      const hits = await store.searchText(["deploy", "user"], 10, {
        tiers: ["short", "long"],
        sources: ["memory"],
        pathPrefix: "MEMORY",
      });
      expect(locations(hits).sort()).toEqual(["MEMORY.md:1", "MEMORY.md:10"]);
    });

    it("orders equal scores by path, then start line", async () => {
      const store = await h.store();
      const same = ["tiebreak", "same", "words"];
      await store.write({
        upserts: [
          fileWithChunks("tie/b.md", [[1, same]]),
          fileWithChunks("tie/a.md", [
            [9, same],
            [2, same],
          ]),
          fileWithChunks("tie/c.md", [[1, same]]),
          ...Array.from({ length: 8 }, (_, i) =>
            fileWithChunks(`tie/filler-${i}.md`, [[1, ["other", `w${i}`]]]),
          ),
        ],
      });
      const hits = await store.searchText(["tiebreak"], 10);
      expect(locations(hits)).toEqual(["tie/a.md:2", "tie/a.md:9", "tie/b.md:1", "tie/c.md:1"]);
      expect(new Set(hits.map((hit) => hit.score)).size).toBe(1);
      expect(locations(await store.searchText(["tiebreak"], 2))).toEqual([
        "tie/a.md:2",
        "tie/a.md:9",
      ]);
    });
  });
}
