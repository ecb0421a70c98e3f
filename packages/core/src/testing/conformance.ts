import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe } from "vitest";
import type { MemoryStore } from "../driver/index.js";
import type { Harness } from "./conformance-fixtures.js";
import { keyValueSection } from "./conformance-key-value.js";
import { persistenceSection } from "./conformance-persistence.js";
import { recordsSection } from "./conformance-records.js";
import { resetSection } from "./conformance-reset.js";
import { scaleSection } from "./conformance-scale.js";
import { textSearchSection } from "./conformance-text.js";
import { vectorSearchSection } from "./conformance-vector.js";

/** How the kit obtains stores of the driver under test. */
export interface StoreConformanceFactory {
  /** A new, empty store whose data lives in `dir` (a fresh temp dir per test). */
  create(dir: string): Promise<MemoryStore>;
  /**
   * Open the store persisted in `dir` again (omit for non-persistent stores; persistence tests are
   * then skipped with a visible reason).
   */
  reopen?(dir: string): Promise<MemoryStore>;
}

/**
 * The store conformance kit: registers vitest suites proving that a {@link MemoryStore} driver
 * has the contract's semantics (the doc comments in `store/store.ts` and `store/records.ts`).
 * Call it at the top level of a test file of your driver:
 *
 * ```ts
 * import { describeStoreConformance } from "@engram/core/testing";
 * describeStoreConformance("my-driver", {
 *   create: async (dir) => createMyStore({ dir }),
 *   reopen: async (dir) => createMyStore({ dir }),
 * });
 * ```
 *
 * Each test gets a fresh temp dir (removed afterwards); the kit calls `init()` and closes every
 * store it opened. Tests needing a capability the store does not declare (`vector`,
 * `keyValue`, `persistent`, `atomicWrites`) are skipped with the reason shown.
 */
export function describeStoreConformance(name: string, factory: StoreConformanceFactory): void {
  describe(`MemoryStore conformance: ${name}`, () => {
    let dir = "";
    const opened: MemoryStore[] = [];

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), "engram-conformance-"));
    });

    afterEach(async () => {
      for (const store of opened.splice(0).reverse()) await store.close();
      await rm(dir, { recursive: true, force: true });
    });

    const initialised = async (store: MemoryStore) => {
      opened.push(store);
      await store.init();
      return store;
    };
    const reopen = factory.reopen?.bind(factory);
    const harness: Harness = {
      store: async () => initialised(await factory.create(dir)),
      reopen: async () => {
        if (!reopen) throw new Error("the factory has no reopen()");
        return initialised(await reopen(dir));
      },
    };

    recordsSection(name, harness);
    resetSection(name, harness);
    textSearchSection(name, harness);
    vectorSearchSection(name, harness);
    keyValueSection(name, harness);
    scaleSection(name, harness);
    if (reopen) {
      persistenceSection(name, harness);
    } else {
      describe.skip(`persistence — skipped: the ${name} factory has no reopen()`, () => {
        persistenceSection(name, harness);
      });
    }
  });
}
