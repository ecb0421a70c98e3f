import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Table } from "@lancedb/lancedb";
import { afterEach } from "vitest";
import { createLanceDbStore, type LanceDbStore, type LanceDbStoreOptions } from "../src/index.js";

/** Temp folders and stores made by a test file, closed and removed after each test. */
export function useTempStores() {
  const dirs: string[] = [];
  const stores: LanceDbStore[] = [];
  const tables: Array<{ close(): void }> = [];

  afterEach(async () => {
    for (const table of tables.splice(0)) table.close();
    for (const store of stores.splice(0).reverse()) await store.close();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  return {
    async dir(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), "engram-lancedb-"));
      dirs.push(dir);
      return dir;
    },
    /** A store over a new temp folder (or `options.uri`), not yet initialised. */
    async create(options: Partial<LanceDbStoreOptions> = {}): Promise<LanceDbStore> {
      const store = createLanceDbStore({ uri: options.uri ?? (await this.dir()), ...options });
      stores.push(store);
      return store;
    },
    /** An initialised store (closed after the test). */
    async open(options: Partial<LanceDbStoreOptions> = {}): Promise<LanceDbStore> {
      const store = await this.create(options);
      await store.init();
      return store;
    },
    /** A table of the database at `uri`, opened with LanceDB itself (to look behind the store). */
    async table(uri: string, name: string): Promise<Table> {
      const db = await connect(uri, { readConsistencyInterval: 0 });
      const table = await db.openTable(name);
      tables.push(table, db);
      return table;
    },
  };
}

/** A file with one chunk per `[startLine, terms, embedding?]` (shared with every driver's tests). */
export { storeUpsert as upsert } from "@engram/core/testing";
