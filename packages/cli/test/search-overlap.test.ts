import { setTimeout as sleep } from "node:timers/promises";
import {
  createMemory,
  type Embedder,
  EmbeddingError,
  type Memory,
  type StoreFactory,
} from "@engram/core";
import { createHashingEmbedder } from "@engram/core/testing";
import { sqliteStore } from "@engram/store-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeDir, tempDir, writeFiles } from "./helpers.js";

/**
 * Hybrid search starts the query embedding (a provider round trip) before the keyword search and
 * awaits it after, so a slow provider costs max(embedding + vector, keyword) instead of the sum.
 * The provider here answers query embeddings after a timer, as a remote one answers after the
 * network; `events` records the order in which the two sides ran on real SQLite.
 */
function delayedProvider(events: string[], behaviour: "answer" | "reject" | "throw" = "answer") {
  const inner = createHashingEmbedder({ dims: 32, model: "delayed" });
  const embedder: Embedder = {
    id: "delayed",
    model: inner.model,
    dims: inner.dims,
    maxBatchSize: 16,
    embedBatch: (texts) => inner.embedBatch(texts),
    embedQuery(text) {
      if (behaviour === "throw") {
        events.push("embed:threw");
        throw new EmbeddingError("auth", "delayed", "scripted synchronous failure");
      }
      events.push("embed:start");
      return sleep(20).then(() => {
        events.push("embed:end");
        if (behaviour === "reject") {
          throw new EmbeddingError("auth", "delayed", "scripted late failure");
        }
        return inner.embedQuery(text);
      });
    },
  };
  return embedder;
}

describe("hybrid search overlaps the query embedding with the keyword search (real SQLite)", () => {
  let ws: string;
  const open: Memory[] = [];
  const memoryWith = async (embedder: Embedder, events: string[]) => {
    const factory = sqliteStore();
    const store: StoreFactory = async (context) => {
      const real = await factory(context);
      const searchText = real.searchText.bind(real);
      real.searchText = async (...args) => {
        events.push("text:start");
        const hits = await searchText(...args);
        events.push("text:end");
        return hits;
      };
      return real;
    };
    const memory = await createMemory({
      workspace: ws,
      store,
      embedder,
      config: { embedding: { retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1 } } },
    });
    open.push(memory);
    return memory;
  };
  /** The workspace indexed with a healthy provider, then opened with one that fails this way. */
  const indexedThenFailing = async (events: string[], failure: "reject" | "throw") => {
    const healthy = await memoryWith(delayedProvider(events), events);
    await healthy.sync();
    await healthy.close();
    return memoryWith(delayedProvider(events, failure), events);
  };
  beforeEach(async () => {
    ws = await tempDir();
    await writeFiles(ws, {
      "memory/2026-03-01.md":
        "## 09:00\nDeploy window moved to Friday\n\n## 10:00\n部署窗口改到周五\n",
      "MEMORY.md": "# Decisions\n\nDeploys happen on Fridays after the review.\n",
    });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((m) => m.close()));
    await removeDir(ws);
  });

  it("runs the keyword search while the query embedding is in flight", async () => {
    const events: string[] = [];
    const memory = await memoryWith(delayedProvider(events), events);
    await memory.sync();
    events.length = 0;
    const response = await memory.search("deploy window", { mode: "hybrid" });
    expect(events).toEqual(["embed:start", "text:start", "text:end", "embed:end"]);
    expect(response.degraded).toBe(false);
    expect(response.results[0]?.scores.vector).toBeGreaterThan(0);
    expect(response.results[0]?.scores.text).toBeGreaterThan(0);
  });

  it("a query embedding that fails late degrades to the keyword results already found", async () => {
    const events: string[] = [];
    const memory = await indexedThenFailing(events, "reject");
    events.length = 0;
    const response = await memory.search("部署窗口", { mode: "hybrid" });
    expect(events).toEqual(["embed:start", "text:start", "text:end", "embed:end"]);
    expect(response).toMatchObject({ mode: "keyword", degraded: true });
    expect(response.degradedReason).toMatch(/embedding the query failed: .*scripted late failure/);
    expect(response.results[0]?.path).toBe("memory/2026-03-01.md");
    await expect(memory.search("部署窗口", { mode: "vector" })).rejects.toThrow(
      /scripted late failure/,
    );
  });

  it("a provider that throws synchronously degrades the same way", async () => {
    const events: string[] = [];
    const memory = await indexedThenFailing(events, "throw");
    const response = await memory.search("Friday review", { mode: "hybrid" });
    expect(response).toMatchObject({ mode: "keyword", degraded: true });
    expect(response.degradedReason).toMatch(/scripted synchronous failure/);
    expect(response.results.map((r) => r.path)).toContain("MEMORY.md");
  });
});
