import type { QdrantClient, Schemas } from "@qdrant/js-client-rest";
import { classify } from "./errors.js";
import type { PayloadIndex } from "./schema.js";

/** Runs one client call with retries, failures as EngramErrors (the store's `#call`). */
export type Caller = <T>(action: string, fn: (client: QdrantClient) => Promise<T>) => Promise<T>;

/**
 * The collection's info, creating it (with its payload indexes) when missing, and the payload
 * indexes a collection written by an older version lacks. Another process creating it at the
 * same moment is fine: a 409 means it exists now.
 */
export async function ensureCollection(
  call: Caller,
  name: string,
  config: Schemas["CreateCollection"],
  indexes: readonly PayloadIndex[],
): Promise<Schemas["CollectionInfo"]> {
  const { exists } = await call("open the index", (client) => client.collectionExists(name));
  if (!exists) await createCollection(call, name, config, indexes);
  const info = await call("open the index", (client) => client.getCollection(name));
  const missing = missingIndexes(info, indexes);
  for (const index of missing) {
    await call("create the index", (client) =>
      client.createPayloadIndex(name, { wait: true, ...index }),
    );
  }
  return missing.length ? call("open the index", (client) => client.getCollection(name)) : info;
}

/** The payload indexes of `indexes` the collection does not have. */
export function missingIndexes(
  info: Pick<Schemas["CollectionInfo"], "payload_schema">,
  indexes: readonly PayloadIndex[],
): PayloadIndex[] {
  const have = new Set(Object.keys(info.payload_schema ?? {}));
  return indexes.filter((index) => !have.has(index.field_name));
}

/** Create a collection (an existing one is left as is) and its payload indexes. */
export async function createCollection(
  call: Caller,
  name: string,
  config: Schemas["CreateCollection"],
  indexes: readonly PayloadIndex[],
): Promise<void> {
  await call("create the index", (client) =>
    tolerate(409, () => client.createCollection(name, config)),
  );
  for (const index of indexes) {
    await call("create the index", (client) =>
      client.createPayloadIndex(name, { wait: true, ...index }),
    );
  }
}

/** Delete a collection; one that is already gone is fine. */
export async function dropCollection(call: Caller, name: string, action: string): Promise<void> {
  await call(action, (client) => tolerate(404, () => client.deleteCollection(name)));
}

/** Run `fn`, treating an HTTP `status` answer as done. */
async function tolerate(status: number, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    const failure = classify(error);
    if (failure.kind !== "http" || failure.status !== status) throw error;
  }
}
