import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EngramError } from "@engram/core/driver";
import { EmbeddingCache, type KeyValueStore } from "@engram/core/driver";
import { describe, expect, it, vi } from "vitest";
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from "../src/index.js";
import { locations, rejection, upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/** A store with one of everything, saved to `path` and closed. */
async function savedStore(path: string) {
  const store = await temp.open({ snapshotPath: path });
  await store.reset({ dims: 3 });
  await store.setMeta("engram.identity", '{"format":1} — 记忆 🚀');
  const a = upsert("MEMORY.md", [
    [1, ["用", "户", "用户", "偏好"], [0.1, -2.5e-38, 3.4e38]],
    [7, ["deploy"], [0, 1, 0]],
  ]);
  const b = upsert("sessions/s.jsonl", [[1, ["chat"]]], { source: "sessions", tier: "short" });
  (a.chunks[0] as { headings: string[] }).headings = ["记忆", "Prefs"];
  await store.write({ upserts: [a, b] });
  await store.keyValue?.set([
    ["k1", Uint8Array.from([1, 2])],
    ["k2", Uint8Array.from([])],
    ["k3", Uint8Array.from([0, 255, 128])],
  ]);
  await store.close();
  return { a, b };
}

/** Poll until `check` holds (the periodic save runs on a timer). */
async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error("condition not met in time");
    await new Promise((done) => setTimeout(done, 10));
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("snapshots", () => {
  it("restore files, chunks, meta, dims, exact vectors and the key-value map", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    const { a, b } = await savedStore(path);

    const store = await temp.open({ snapshotPath: path });
    expect(await store.dims()).toBe(3);
    expect(await store.getMeta("engram.identity")).toBe('{"format":1} — 记忆 🚀');
    expect(await store.listFiles()).toEqual([a.file, b.file]);
    expect((await store.getChunks("MEMORY.md"))[0]?.headings).toEqual(["记忆", "Prefs"]);
    expect(locations(await store.searchText(["偏好", "chat"], 5)).sort()).toEqual([
      "MEMORY.md:1",
      "sessions/s.jsonl:1",
    ]);
    const [hit] = await store.searchVector(Float32Array.from([0.1, -2.5e-38, 3.4e38]), 1);
    expect(hit?.chunk.startLine).toBe(1);
    expect(await store.stats()).toMatchObject({ files: 2, chunks: 3, vectors: 2 });
    const values = await store.keyValue?.get(["k1", "k2", "k3"]);
    expect(Object.fromEntries([...(values ?? [])].map(([k, v]) => [k, Array.from(v)]))).toEqual({
      k1: [1, 2],
      k2: [],
      k3: [0, 255, 128],
    });
  });

  it("read version 1 snapshots, whose embedding cache becomes core's", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    const vector = Buffer.from(Float32Array.from([0.5, -1]).buffer).toString("base64");
    await writeFile(
      path,
      [
        JSON.stringify({ format: SNAPSHOT_FORMAT, version: 1, dims: null, savedAt: "x" }),
        JSON.stringify({ cache: ["openai:m:2:h", vector] }),
        JSON.stringify({ end: { meta: 0, files: 0, chunks: 0, cache: 1 } }),
        "",
      ].join("\n"),
    );
    const store = await temp.open({ snapshotPath: path });
    const cache = new EmbeddingCache(store.keyValue as KeyValueStore);
    expect(Array.from((await cache.get(["openai:m:2:h"])).get("openai:m:2:h") ?? [])).toEqual([
      0.5, -1,
    ]);
  });

  it("are JSON Lines: a header, one record per line, an end record with the counts", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    await savedStore(path);
    const lines = (await readFile(path, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, dims: 3 });
    expect(lines.at(-1)).toEqual({ end: { meta: 1, files: 2, chunks: 3, kv: 3 } });
    const chunk = lines.find((line) => line.chunk?.startLine === 7)?.chunk;
    expect(chunk).toMatchObject({ path: "MEMORY.md", terms: ["deploy"] });
    expect(Buffer.from(chunk.embedding, "base64")).toEqual(
      Buffer.from(Float32Array.from([0, 1, 0]).buffer),
    );
  });

  it("start empty when the file does not exist, and write nothing when nothing changed", async () => {
    const dir = await temp.dir();
    const path = join(dir, "nested", "snapshot.jsonl");
    const untouched = await temp.open({ snapshotPath: path });
    expect(await untouched.stats()).toEqual({ files: 0, chunks: 0, vectors: 0, bytes: 0 });
    await untouched.close();
    expect(await exists(path)).toBe(false);

    const changed = await temp.open({ snapshotPath: path });
    await changed.setMeta("k", "v");
    await changed.close();
    expect(await exists(path)).toBe(true);
  });

  it("snapshot() saves atomically, leaving no temp file, and stats() reports its size", async () => {
    const dir = await temp.dir();
    const path = join(dir, "snapshot.jsonl");
    const store = await temp.open({ snapshotPath: path });
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    await Promise.all([store.snapshot(), store.snapshot(), store.snapshot()]);
    expect(await readdir(dir)).toEqual(["snapshot.jsonl"]);
    expect((await store.stats()).bytes).toBe((await stat(path)).size);

    const other = await temp.open({ snapshotPath: path });
    expect(locations(await other.searchText(["alpha"], 5))).toEqual(["a.md:1"]);
  });

  it("a failed save names the file, keeps the store usable and leaves no temp file", async () => {
    const dir = await temp.dir();
    const path = join(dir, "snapshot.jsonl");
    const store = await temp.open({ snapshotPath: path });
    await store.setMeta("k", "v");
    await mkdir(join(path, "in-the-way"), { recursive: true }); // a folder where the file goes
    const failed = await rejection(store.snapshot());
    expect(failed.code).toBe("STORE_FAILED");
    expect(failed.message).toContain(path);
    expect(await readdir(dir)).toEqual(["snapshot.jsonl"]);
    expect(await store.getMeta("k")).toBe("v");
    expect((await rejection(store.close())).code).toBe("STORE_FAILED");
    await expect(store.close()).resolves.toBeUndefined();
  });

  it("are saved periodically while the store changes, and only then", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    const store = await temp.open({ snapshotPath: path, snapshotIntervalMs: 20 });
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    await eventually(() => exists(path));
    const first = await stat(path);
    await new Promise((done) => setTimeout(done, 120));
    expect((await stat(path)).ino).toBe(first.ino); // a save renames a new file into place

    await store.write({ upserts: [upsert("b.md", [[1, ["beta"]]])] });
    await eventually(async () => (await stat(path)).ino !== first.ino);
    expect(await readFile(path, "utf8")).toContain('"b.md"');
  });

  it("report a failed periodic save to onSnapshotError", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    const onSnapshotError = vi.fn<(error: EngramError) => void>();
    const store = await temp.open({ snapshotPath: path, snapshotIntervalMs: 20, onSnapshotError });
    await mkdir(join(path, "in-the-way"), { recursive: true });
    await store.setMeta("k", "v");
    await eventually(async () => onSnapshotError.mock.calls.length > 0);
    expect(onSnapshotError.mock.calls[0]?.[0]).toMatchObject({ code: "STORE_FAILED" });
  });

  it("the periodic timer never keeps a process alive", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(fixtures, "open-without-close.ts"), path],
      { env: { ...process.env, TSX_TSCONFIG_PATH: join(fixtures, "tsconfig.json") } },
    );
    let output = "";
    child.stdout.on("data", (data) => (output += data));
    child.stderr.on("data", (data) => (output += data));
    const killer = setTimeout(() => child.kill(), 20_000); // the interval is 60 s
    const code = await new Promise((done) => child.on("exit", (exitCode) => done(exitCode)));
    clearTimeout(killer);
    expect(output).toContain("ready");
    expect(code).toBe(0);
  }, 30_000);
});

describe("a damaged snapshot", () => {
  const header = JSON.stringify({ format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, dims: 2 });
  const file = JSON.stringify({
    file: { path: "a.md", source: "memory", tier: "long", hash: "h", mtimeMs: 1, size: 1 },
  });
  const chunk = (embedding: unknown, path = "a.md") =>
    JSON.stringify({
      chunk: {
        id: "c1",
        path,
        source: "memory",
        tier: "long",
        startLine: 1,
        endLine: 1,
        headings: [],
        text: "x",
        hash: "h",
        terms: ["x"],
        embedding,
      },
    });
  const end = (chunks: number) => JSON.stringify({ end: { meta: 0, files: 1, chunks, kv: 0 } });
  const vector = Buffer.from(Float32Array.from([1, 2]).buffer).toString("base64");

  const cases: Array<[name: string, content: string, problem: RegExp]> = [
    ["empty", "", /empty/],
    ["not JSON", "{oops\n", /line 1: it is not JSON/],
    ["another format", '{"format":"other"}\n', /format/],
    [
      "a newer version",
      `${JSON.stringify({ format: SNAPSHOT_FORMAT, version: 99, dims: null })}\n`,
      /version 99/,
    ],
    ["cut off", `${header}\n${file}\n${chunk(vector)}\n`, /cut off/],
    ["miscounted", `${header}\n${file}\n${chunk(vector)}\n${end(2)}\n`, /counts 2 chunks/],
    [
      "a vector of other dims",
      `${header}\n${file}\n${chunk("AAAA")}\n${end(1)}\n`,
      /line 3: .*2 base64 float32/,
    ],
    ["a vector that is not base64", `${header}\n${file}\n${chunk("AA!A")}\n${end(1)}\n`, /line 3/],
    [
      "a chunk without its file",
      `${header}\n${file}\n${chunk(null, "b.md")}\n${end(1)}\n`,
      /no file record/,
    ],
    [
      "a bad tier",
      `${header}\n${file.replace('"long"', '"forever"')}\n${end(0)}\n`,
      /line 2: tier "forever"/,
    ],
    ["data after the end", `${header}\n${file}\n${end(0)}\n${file}\n`, /after the end/],
  ];

  it.each(cases)(
    "(%s) is refused naming the file, the line and the fix",
    async (_name, content, problem) => {
      const path = join(await temp.dir(), "snapshot.jsonl");
      await writeFile(path, content);
      const store = temp.create({ snapshotPath: path });
      const refused = await rejection(store.init());
      expect(refused.code).toBe("STORE_FAILED");
      expect(refused.message).toContain(path);
      expect(refused.message).toMatch(problem);
      expect(refused.hint).toContain(`Delete ${path}`);
      await store.close();
      expect(await readFile(path, "utf8")).toBe(content); // closing did not save over it
    },
  );

  it("loads once it is fixed (the same content, intact)", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    await writeFile(path, `${header}\n${file}\n${chunk(vector)}\n${end(1)}\n`);
    const store = await temp.open({ snapshotPath: path });
    expect(await store.stats()).toMatchObject({ files: 1, chunks: 1, vectors: 1 });
  });

  it("a folder in the snapshot's place is reported as unreadable", async () => {
    const path = join(await temp.dir(), "snapshot.jsonl");
    await mkdir(path);
    const refused = await rejection(temp.create({ snapshotPath: path }).init());
    expect(refused.code).toBe("STORE_FAILED");
    expect(refused.message).toContain(`Could not read the memory store snapshot ${path}`);
  });
});
