import { isAbsolute, join, resolve } from "node:path";
import { checkStoreOptions, type StoreFactory } from "@engram/core/driver";
import { LanceDbStore } from "./lancedb-store.js";
import { parseLocation } from "./location.js";
import {
  DEFAULT_FOLDER_NAME,
  type LanceDbStoreFactoryOptions,
  type LanceDbStoreOptions,
} from "./options.js";

/**
 * A LanceDB store at `options.uri` (a folder, or a URI such as `s3://bucket/prefix`). Call
 * `init()` before use; that is when LanceDB connects and the tables are created.
 *
 * @throws EngramError `CONFIG_INVALID` for an empty URI or an option out of range.
 */
export function createLanceDbStore(options: LanceDbStoreOptions): LanceDbStore {
  return new LanceDbStore(options);
}

/**
 * The factory core uses to open a workspace's store: by default the folder
 * `<workspace>/.engram/lancedb`. A relative `uri` resolves against the workspace; any URI with a
 * scheme (`s3://…`, `gs://…`, `az://…`, `memory://…`) passes through unchanged.
 */
export function lancedbStore(options: LanceDbStoreFactoryOptions = {}): StoreFactory {
  checkStoreOptions("lancedb", options, [
    "uri",
    "storageOptions",
    "readConsistencySeconds",
    "vectorIndexMinRows",
    "fulltextStaleFraction",
    "versionRetentionMs",
  ] satisfies ReadonlyArray<keyof LanceDbStoreFactoryOptions>);
  return ({ workspace, indexDir }) => {
    const { uri: configured, ...rest } = options;
    return createLanceDbStore({ ...rest, uri: resolveUri(configured, workspace, indexDir) });
  };
}

function resolveUri(configured: string | undefined, workspace: string, indexDir: string): string {
  if (configured === undefined) return join(indexDir, DEFAULT_FOLDER_NAME);
  if (configured.trim() === "" || parseLocation(configured).kind !== "local") return configured;
  if (configured.startsWith("file:") || isAbsolute(configured)) return configured;
  return resolve(workspace, configured);
}
