import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bench, removeDir, tempDir } from "./helpers.js";

const FIXTURES = join(import.meta.dirname, "fixtures");

/** Six documents, three judged queries: a BEIR folder small enough to index in a second. */
async function writeTinyBeir(dir: string): Promise<void> {
  const docs = [
    ["d1", "Rollback plan", "Roll back the deploy with the blue-green switch."],
    ["d2", "Advisory locks", "Postgres advisory locks serialise the migration."],
    ["d3", "Lunch", "The team had noodles on Friday."],
    ["d4", "Redis", "Redis locks expire after thirty seconds."],
    ["d5", "用户偏好", "回答先给结论，再给理由。"],
    ["d6", "Migration blocker", "The migration is blocked on the schema review."],
  ];
  await mkdir(join(dir, "qrels"), { recursive: true });
  await writeFile(
    join(dir, "corpus.jsonl"),
    docs.map(([id, title, text]) => JSON.stringify({ _id: id, title, text })).join("\n"),
  );
  const queries = [
    ["q1", "how do we roll back a deploy"],
    ["q2", "which locks does the migration use"],
    ["q3", "用户偏好"],
  ];
  await writeFile(
    join(dir, "queries.jsonl"),
    queries.map(([id, text]) => JSON.stringify({ _id: id, text })).join("\n"),
  );
  await writeFile(
    join(dir, "qrels", "test.tsv"),
    "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td5\t1\n",
  );
}

describe("engram-bench beir --embedder (built bench, real SQLite)", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir("engram-bench-embedder-");
    await writeTinyBeir(join(dir, "beir"));
  });
  afterEach(() => removeDir(dir));

  const run = (extra: string[]) =>
    bench([
      "--json",
      "beir",
      "--dir",
      join(dir, "beir"),
      "--runs",
      "1",
      "--embedding-cache",
      join(dir, "cache"),
      ...extra,
    ]);

  it("measures every mode with the module's embedder, and a second run embeds nothing", async () => {
    const first = await run(["--embedder", join(FIXTURES, "hashing-provider.mjs")]);
    expect(first.code, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout);
    expect(a.modes.map((m: { label: string }) => m.label)).toEqual([
      "keyword",
      "vector",
      "hybrid weighted",
      "hybrid rrf",
    ]);
    expect(a.embedding).toMatchObject({ id: "hashing", dims: 32 });
    expect(a.embedding.cache.misses).toBeGreaterThan(0);
    expect(await readdir(join(dir, "cache"))).toHaveLength(1);

    const second = await run(["--embedder", join(FIXTURES, "hashing-provider.mjs")]);
    expect(second.code, second.stderr).toBe(0);
    const b = JSON.parse(second.stdout);
    expect(b.embedding.cache.misses).toBe(0);
    expect(b.embedding.cache.hits).toBe(a.embedding.cache.misses + a.embedding.cache.hits);
    // Cached vectors are the same vectors: every mode scores the same.
    expect(b.modes).toEqual(a.modes);
  });

  it("refuses a module that exports no embedder, naming the fix", async () => {
    const bad = await run(["--embedder", join(FIXTURES, "not-an-embedder.mjs")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("exports no embedding provider or embedder");
    const missing = await run(["--embedder", join(dir, "nowhere.mjs")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot be loaded");
  });

  it("--max-docs keeps every judged document and --queries keeps a half", async () => {
    const r = await run(["--max-docs", "4", "--queries", "odd"]);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.docs).toBe(4);
    expect(result.queries).toBe(1);
  });

  it("small: each query in a workspace of its window of documents, judged ones added", async () => {
    const r = await bench(["--json", "small", "--dir", join(dir, "beir"), "--docs", "2,6"]);
    expect(r.code, r.stderr).toBe(0);
    const [two, six] = JSON.parse(r.stdout);
    // Windows of 2: d1 d2 | d3 d4 | d5 d6 — q1 (d1) and q2 (d2) share the first, q3 (d5) the third.
    expect(two).toMatchObject({ docsPerWorkspace: 2, workspaces: 2, queries: 3 });
    expect(two.sizes).toEqual({ min: 2, median: 2, max: 2 });
    expect(six).toMatchObject({ workspaces: 1, queries: 3, sizes: { min: 6, max: 6 } });
    expect(six.modes.map((m: { label: string }) => m.label)).toEqual(["keyword"]);
    // Every query finds its document first in a workspace this small.
    expect(two.modes[0].quality.mrr10).toBe(1);
  });
});
