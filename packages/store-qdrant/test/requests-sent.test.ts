// What the store sends, request by request, without a Qdrant server: a local HTTP server records
// each request and gives the acknowledgement Qdrant's REST API gives (`{ result, status, time }`).
// It stores nothing and finds nothing: searches here test the requests, not rankings (those need
// a real Qdrant: conformance.test.ts, parity.test.ts).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { storeUpsert } from "@engram/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkPointId, recordPointId } from "../src/ids.js";
import { createQdrantStore, type QdrantStore } from "../src/index.js";

interface Sent {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

const sent: Sent[] = [];
/** Scores the next chunk queries answer with (one hit per score), or none. */
let queryScores: number[] = [];

/** Qdrant's answer to `path`, for a chunk collection of 3 dims that has all its indexes. */
function answer(method: string, path: string, body: Record<string, unknown> | undefined): unknown {
  if (path.endsWith("/exists")) return { exists: true };
  if (method === "GET") {
    const records = path.includes("_records");
    return {
      status: "green",
      points_count: 0,
      config: {
        params: records
          ? { vectors: {} }
          : {
              vectors: { dense: { size: 3, distance: "Cosine" } },
              sparse_vectors: { bm25: { modifier: "idf" } },
            },
      },
      payload_schema: Object.fromEntries(
        (records
          ? ["kind", "source", "key_folders"]
          : ["path", "path_prefixes", "tier", "source", "embedded"]
        ).map((k) => [k, {}]),
      ),
    };
  }
  if (path.endsWith("/points/scroll")) return { points: [], next_page_offset: null };
  if (path.endsWith("/points/count")) return { count: 0 };
  if (path.endsWith("/points/query")) {
    const limit = Number(body?.limit);
    return {
      points: queryScores.slice(0, limit).map((score, i) => ({
        id: chunkPointId(`c${i}`),
        version: 1,
        score,
        payload: {
          chunk_id: `c${i}`,
          path: `记忆/${String(i).padStart(2, "0")}.md`,
          source: "memory",
          tier: "long",
          start_line: 1,
          end_line: 1,
          headings: [],
          text: "",
          hash: "",
        },
      })),
    };
  }
  if (method === "POST" && path.endsWith("/points")) return [];
  return { operation_id: 1, status: "completed" };
}

const server = createServer((req, res) => {
  let text = "";
  req.on("data", (chunk) => (text += chunk));
  req.on("end", () => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    sent.push({ method: req.method ?? "", path, body });
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({ result: answer(req.method ?? "", path, body), status: "ok", time: 0 }),
    );
  });
});

let store: QdrantStore;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  store = createQdrantStore({ url: `http://127.0.0.1:${port}`, collection: "c", batchSize: 2 }, {});
  await store.init();
});

afterAll(async () => {
  await store.close();
  await new Promise((resolve) => server.close(resolve));
});

/** The requests `action` sends, as `METHOD path`. */
async function requestsOf(action: () => Promise<unknown>): Promise<Sent[]> {
  sent.length = 0;
  await action();
  return [...sent];
}
const lines = (requests: Sent[]) => requests.map((r) => `${r.method} ${r.path}`);

describe("requests the store sends", () => {
  it("write: chunks first (deleted files', new points in batches, the rest of old versions), file records last", async () => {
    const a = storeUpsert("记忆/a.md", [
      [1, ["用户"], [1, 0, 0]],
      [3, ["偏好"], [0, 1, 0]],
      [5, ["深色"]],
    ]);
    const requests = await requestsOf(() =>
      store.write({
        deletes: ["gone.md", "记忆/a.md"],
        upserts: [a],
        touches: [
          { ...a.file, mtimeMs: 7 },
          { ...a.file, mtimeMs: 8 },
          { ...a.file, path: "other.md", mtimeMs: 9 },
          { ...a.file, path: "gone.md", mtimeMs: 9 },
        ],
      }),
    );
    expect(lines(requests)).toEqual([
      "POST /collections/c/points/delete", // gone.md's chunks
      "PUT /collections/c/points", // 3 chunk points, batchSize 2
      "PUT /collections/c/points",
      "POST /collections/c/points/delete", // 记忆/a.md's chunks but the new ones
      "POST /collections/c_records/points/delete", // gone.md's record
      "PUT /collections/c_records/points", // 记忆/a.md's record, with its last touch
      "POST /collections/c_records/points", // other.md's record, to touch it (not found here)
    ]);
    const [deleted, first, second, stale, deletedRecord, record, touched] = requests;
    expect(deleted?.body?.filter).toEqual({ must: [{ key: "path", match: { value: "gone.md" } }] });
    expect([first, second].map((r) => (r?.body?.points as unknown[] | undefined)?.length)).toEqual([
      2, 1,
    ]);
    expect(stale?.body?.filter).toEqual({
      must: [{ key: "path", match: { value: "记忆/a.md" } }],
      must_not: [{ has_id: a.chunks.map((chunk) => chunkPointId(chunk.id)) }],
    });
    expect(deletedRecord?.body?.points).toEqual([recordPointId("file", "gone.md")]);
    const [file] = (record?.body?.points ?? []) as Array<{ payload: { mtime_ms: number } }>;
    expect(file?.payload.mtime_ms).toBe(8);
    expect(touched?.body?.ids).toEqual([recordPointId("file", "other.md")]);
  });

  it("search: one query with the filter, a wider one while a tie runs past the cut-off", async () => {
    queryScores = [2, 1, 1, 1];
    const requests = await requestsOf(() =>
      store.searchText(["用户", "用户", "偏好"], 2, { tiers: ["long"], pathPrefix: "记忆/" }),
    );
    queryScores = [];
    expect(requests.map((r) => r.body?.limit)).toEqual([3, 6]);
    expect(requests[0]?.body).toMatchObject({
      using: "bm25",
      query: { values: [1, 1] },
      filter: { must: [{ key: "tier", match: { value: "long" } }, { key: "path_prefixes" }] },
    });
  });

  it("search: nothing is sent for what matches nothing", async () => {
    const requests = await requestsOf(async () => {
      await store.searchText(["用户"], 5, { sources: [] });
      await store.searchText([], 5);
      await store.searchVector(new Float32Array(3), 5);
      await store.searchVector(Float32Array.from([1, 0, 0]), 0);
      await store.write({ upserts: [] });
    });
    expect(lines(requests)).toEqual([]);
  });

  it("refuses a batch that does not fit before sending anything", async () => {
    const wrong = storeUpsert("a.md", [[1, ["x"], [1, 0]]]);
    const requests = await requestsOf(() =>
      expect(store.write({ upserts: [wrong] })).rejects.toMatchObject({
        code: "STORE_DIMS_MISMATCH",
      }),
    );
    expect(requests).toEqual([]);
  });

  it("reset: file records go first, then the chunk collection is made anew for the new dims", async () => {
    const requests = await requestsOf(() => store.reset({ dims: 4 }));
    expect(lines(requests)).toEqual([
      "POST /collections/c_records/points/delete",
      "DELETE /collections/c",
      "PUT /collections/c",
      ...Array(5).fill("PUT /collections/c/index"),
      "PUT /collections/c_records/points", // the layout meta
    ]);
    expect(requests[2]?.body?.vectors).toEqual({ dense: { size: 4, distance: "Cosine" } });
    expect(await store.dims()).toBe(4);
  });
});
