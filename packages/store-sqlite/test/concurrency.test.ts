import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isEngramError } from "@engram/core/driver";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();
const betterSqlite3 = createRequire(import.meta.url).resolve("better-sqlite3");
const childScript = fileURLToPath(new URL("./fixtures/sqlite-child.cjs", import.meta.url));

/** A second process holding its own connection to `path`, answering one command at a time. */
function startChild(path: string) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [childScript, betterSqlite3, path],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let stderr = "";
  child.stderr.on("data", (data) => {
    stderr += String(data);
  });
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done) throw new Error(`child exited: ${stderr}`);
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  return {
    ready: next,
    async send(command: string): Promise<Record<string, unknown>> {
      child.stdin.write(`${command}\n`);
      return next();
    },
    async exit(): Promise<void> {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.write("exit\n");
      await exited;
    },
    kill: () => child.kill(),
  };
}

const children: Array<ReturnType<typeof startChild>> = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

describe("WAL: readers and a writer at once", () => {
  it("a second connection keeps reading its snapshot while the store commits writes", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const store = await temp.open({ path });
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });

    const reader = new Database(path, { readonly: true });
    try {
      reader.exec("BEGIN");
      const count = () =>
        (reader.prepare("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
      expect(count()).toBe(1);
      await store.write({
        upserts: [
          upsert("b.md", [
            [1, ["beta"]],
            [2, ["beta"]],
          ]),
        ],
      });
      expect(count()).toBe(1); // still its snapshot, and the write was not blocked
      reader.exec("COMMIT");
      expect(count()).toBe(3);
    } finally {
      reader.close();
    }

    const other = await temp.open({ path });
    expect((await other.searchText(["beta"], 10)).map((hit) => hit.chunk.path)).toEqual([
      "b.md",
      "b.md",
    ]);
  });

  it("another process reads while the store writes", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const store = await temp.open({ path });
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    const child = startChild(path);
    children.push(child);
    expect(await child.ready()).toEqual({ ready: true });

    expect(await child.send("begin-read")).toEqual({ chunks: 1 });
    await store.write({ upserts: [upsert("b.md", [[1, ["beta"]]])] });
    expect(await child.send("count")).toEqual({ chunks: 1 });
    expect(await child.send("commit")).toEqual({ committed: true });
    expect(await child.send("count")).toEqual({ chunks: 2 });
    await child.exit();
  });

  it("reads go on while another process holds the write lock; writes wait, then fail clearly", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const store = await temp.open({ path, busyTimeoutMs: 200 });
    await store.write({ upserts: [upsert("a.md", [[1, ["alpha"]]])] });
    const child = startChild(path);
    children.push(child);
    await child.ready();
    expect(await child.send("begin-write")).toEqual({ locked: true });

    expect((await store.searchText(["alpha"], 5)).length).toBe(1);
    expect(await store.getMeta("child")).toBeUndefined(); // not committed yet
    expect(await store.listFiles()).toHaveLength(1);

    const failure = await store
      .write({ upserts: [upsert("b.md", [[1, ["beta"]]])] })
      .catch((e) => e);
    expect(isEngramError(failure, "STORE_FAILED")).toBe(true);
    expect(failure.message).toMatch(/locked by another process/);
    expect(failure.hint).toMatch(/other engram process/);

    expect(await child.send("commit")).toEqual({ committed: true });
    expect(await store.getMeta("child")).toBe("was here");
    await store.write({ upserts: [upsert("b.md", [[1, ["beta"]]])] });
    expect(await store.stats()).toMatchObject({ files: 2, chunks: 2 });
    await child.exit();
  });
});
