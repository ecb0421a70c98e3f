import { join } from "node:path";
import { EngramError } from "@engram/core/driver";
import { describe, expect, it } from "vitest";
import {
  type createQdrantStore,
  DEFAULT_BM25,
  defaultCollectionName,
  qdrantStore,
} from "../src/index.js";
import { resolveOptions } from "../src/options.js";

const expectConfigError = (fn: () => unknown, pattern: RegExp) => {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(EngramError);
  expect((caught as EngramError).code).toBe("CONFIG_INVALID");
  expect((caught as EngramError).message).toMatch(pattern);
  expect((caught as EngramError).hint).toBeTruthy();
};

describe("resolveOptions", () => {
  it("defaults to a local server and core's retry policy", () => {
    const resolved = resolveOptions({ collection: "c" });
    expect(resolved).toMatchObject({
      url: "http://localhost:6333",
      apiKey: undefined,
      batchSize: 256,
      exactVectorSearch: false,
      bm25: DEFAULT_BM25,
    });
    expect(resolved.retry.retries).toBe(4);
  });

  it("reads QDRANT_URL and QDRANT_API_KEY; explicit options win", () => {
    const env = { QDRANT_URL: "https://cluster.example:6333/", QDRANT_API_KEY: "env-key" };
    expect(resolveOptions({ collection: "c" }, env)).toMatchObject({
      url: "https://cluster.example:6333",
      apiKey: "env-key",
    });
    expect(
      resolveOptions({ collection: "c", url: "http://other:6333", apiKey: "k" }, env),
    ).toMatchObject({
      url: "http://other:6333",
      apiKey: "k",
    });
    expect(
      resolveOptions({ collection: "c" }, { QDRANT_URL: " ", QDRANT_API_KEY: "" }),
    ).toMatchObject({
      url: "http://localhost:6333",
      apiKey: undefined,
    });
  });

  it("refuses bad values, naming the option", () => {
    expectConfigError(() => resolveOptions({ collection: "c", url: "localhost:6333" }), /url/);
    expectConfigError(() => resolveOptions({ collection: "c", batchSize: 0 }), /batchSize/);
    expectConfigError(() => resolveOptions({ collection: "c", batchSize: 1.5 }), /batchSize/);
    expectConfigError(() => resolveOptions({ collection: "c", bm25: { b: 2 } }), /bm25\.b/);
    expectConfigError(() => resolveOptions({ collection: "c", bm25: { avgTerms: 0 } }), /avgTerms/);
    expectConfigError(() => resolveOptions({ collection: "c", retry: { retries: -1 } }), /retries/);
    expectConfigError(() => resolveOptions({ collection: "c", apiKey: " " }), /apiKey/);
    expectConfigError(() => resolveOptions({ collection: "has space" }), /collection name/);
    expectConfigError(() => resolveOptions({ collection: "a/b" }), /collection name/);
    expectConfigError(() => resolveOptions({ collection: "" }), /collection name/);
    // Values from engram.config.json arrive untyped.
    const untyped = (options: Record<string, unknown>) =>
      resolveOptions({ collection: "c", ...options } as Parameters<typeof resolveOptions>[0]);
    expectConfigError(() => untyped({ url: 6333 }), /url/);
    expectConfigError(() => untyped({ exactVectorSearch: "yes" }), /exactVectorSearch/);
    expectConfigError(() => untyped({ collection: 5 }), /collection name/);
    expectConfigError(() => untyped({ bm25: { k: 1 } }), /bm25\.k .*no such option/);
  });

  it("the factory refuses unknown and bad options when the config is read", () => {
    expectConfigError(
      () => qdrantStore({ colection: "x" } as never, {}),
      /colection.*no such option/,
    );
    expectConfigError(
      () => qdrantStore({ batchSize: -1 }, {}),
      /batchSize is -1; it must be a whole number ≥ 1/,
    );
    expect(() => qdrantStore({ bm25: { avgTerms: 128 }, retry: { retries: 0 } }, {})).not.toThrow();
  });
});

describe("collection names", () => {
  it("are stable per workspace and distinct between workspaces", () => {
    const a = defaultCollectionName("/work/a");
    expect(a).toMatch(/^engram_[0-9a-f]{8}$/);
    expect(defaultCollectionName("/work/a/")).toBe(a);
    expect(defaultCollectionName("/work/b")).not.toBe(a);
  });

  it("come from the workspace in the factory, or from the options", async () => {
    const context = { workspace: "/work/ws", indexDir: join("/work/ws", ".engram") };
    const store = await qdrantStore({}, {})(context);
    expect(store.kind).toBe("qdrant");
    expect((store as ReturnType<typeof createQdrantStore>).collection).toBe(
      defaultCollectionName("/work/ws"),
    );
    expect((store as ReturnType<typeof createQdrantStore>).recordsCollection).toBe(
      `${defaultCollectionName("/work/ws")}_records`,
    );
    const named = await qdrantStore({ collection: "team_memory" }, {})(context);
    expect((named as ReturnType<typeof createQdrantStore>).collection).toBe("team_memory");
  });
});
