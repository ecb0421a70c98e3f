import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RerankServer, startRerankServer } from "../../rerank-http/test/rerank-wire-server.js";
import { engram, removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * The rerank stage end to end: the built CLI, real SQLite, the real HTTP driver, and a local server
 * speaking Cohere's /v1/rerank wire format (its "model" scores a note by the share of the query's
 * words it holds). Keyword search ranks the short note with the rarest words first; the reranker
 * prefers the note holding every query word.
 */
describe("engram search --rerank (built CLI, /v1/rerank on a local server)", () => {
  let server: RerankServer;
  let ws: string;
  beforeAll(async () => {
    server = await startRerankServer();
  });
  afterAll(() => server.close());
  afterEach(() => removeDir(ws));
  beforeEach(async () => {
    server.requests.length = 0;
    ws = await tempDir("engram-rerank-");
    await writeFiles(ws, {
      "MEMORY.md": "# Ops\n\nThe plan for the deploy is written down.\n",
      "memory/2026-01-02.md": "# 2026-01-02\n\n## 10:00\nrollback plan\n",
      "memory/2026-01-03.md":
        "# 2026-01-03\n\n## 10:00\ndeploy on friday, deploy again on monday\n",
      "memory/2026-01-04.md": "# 2026-01-04\n\n## 10:00\nlunch was noodles\n",
    });
  });

  const configure = (rerank: Record<string, unknown>) =>
    writeFile(
      join(ws, "engram.config.json"),
      JSON.stringify({
        embedding: { provider: "none" },
        search: {
          rerank: { provider: "http", providers: { http: { baseUrl: server.url } }, ...rerank },
        },
      }),
    );
  const search = async (...extra: string[]) => {
    const run = await engram([
      "-w",
      ws,
      "--json",
      "search",
      "rollback plan for the deploy",
      ...extra,
    ]);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as {
      results: Array<{ path: string; score: number; scores: { rerank?: number } }>;
      rerank?: { applied: boolean; skipped?: string; candidates: number };
    };
  };

  it("reorders by the reranker when enabled, keeps the fused order with --no-rerank, counts it in status", async () => {
    await configure({});
    const fused = await search("--no-rerank");
    expect(fused.rerank).toBeUndefined();
    expect(server.requests).toHaveLength(0);
    // BM25 prefers the short note with the rarest word; the reranker, the one with most query words.
    expect(fused.results[0]?.path).toBe("memory/2026-01-02.md");

    const reranked = await search();
    expect(reranked.rerank).toMatchObject({ applied: true, candidates: fused.results.length });
    expect(reranked.results[0]?.path).toBe("MEMORY.md");
    expect(reranked.results[0]?.scores.rerank).toBeGreaterThan(0);
    expect(new Set(reranked.results.map((r) => r.path))).toEqual(
      new Set(fused.results.map((r) => r.path)),
    );
    expect(server.requests[0]?.body).toMatchObject({ query: "rollback plan for the deploy" });

    const status = await engram(["-w", ws, "--json", "status"]);
    expect(JSON.parse(status.stdout).rerank).toMatchObject({
      provider: "http",
      enabled: true,
      stats: { calls: 1, applied: 1, skipped: 0, documents: fused.results.length },
    });
    const text = await engram(["-w", ws, "status"]);
    expect(text.stdout).toMatch(/Rerank\s+http: every search/);
    expect(text.stdout).toContain("1 search(es)");
  });

  it("fails open past the deadline and says so; --rerank asks when enabled is false", async () => {
    await configure({ enabled: false, timeoutMs: 300 });
    const off = await search();
    expect(off.rerank).toBeUndefined();
    // One stalled answer for each of the two searches below.
    server.failNext({ stallMs: 3_000 });
    server.failNext({ stallMs: 3_000 });
    const late = await search("--rerank");
    expect(late.rerank).toMatchObject({
      applied: false,
      skipped: "no answer within the 300 ms deadline",
    });
    expect(late.results.map((r) => r.path)).toEqual(off.results.map((r) => r.path));
    const text = await engram(["-w", ws, "search", "rollback plan for the deploy", "--rerank"]);
    expect(text.stdout).toContain("(not reranked: no answer within the 300 ms deadline");
  });

  it("--rerank without a configured reranker is a usage error naming the fix", async () => {
    await writeFile(
      join(ws, "engram.config.json"),
      JSON.stringify({ embedding: { provider: "none" } }),
    );
    const run = await engram(["-w", ws, "search", "deploy", "--rerank"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no reranker is configured");
    expect(run.stderr).toContain("search.rerank.provider");
  });

  it("a reranker never reads private spans or sensitive files unless the config opts in", async () => {
    await writeFiles(ws, {
      "memory/2026-01-05.md":
        "# 2026-01-05\n\n## 10:00\nrollback plan for the deploy: <!-- engram:private -->vault pin 4242 quetzal<!-- /engram:private --> then page ops\n",
      "memory/notes/health.md":
        "---\nsensitive: true\n---\n# Health\n\nrollback plan for the deploy clashes with the ocelot clinic visit\n",
    });
    await configure({});
    const reranked = await search();
    expect(reranked.rerank?.applied).toBe(true);
    const sent = JSON.stringify(server.requests.at(-1)?.body);
    expect(sent).toContain("rollback plan for the deploy: [private] then page ops");
    expect(sent).not.toContain("quetzal");
    expect(sent).not.toContain("ocelot");
    expect(sent).toContain("[withheld: sensitive]");

    await configure({ includePrivate: true });
    await search();
    const opted = JSON.stringify(server.requests.at(-1)?.body);
    expect(opted).toContain("quetzal");
    expect(opted).toContain("ocelot");
  });
});
