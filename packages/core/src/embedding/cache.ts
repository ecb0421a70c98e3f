import type { KeyValueStore } from "../driver/contract.js";
import { EngramError } from "../errors.js";

/** Prefix of every key the cache writes (the rest of the key-value map is left alone). */
const PREFIX = "embedding/";
/** Key holding the number of the current generation. */
const GENERATION_KEY = `${PREFIX}generation`;

/**
 * The embedding cache, so unchanged text is never embedded twice: vectors by key (provider,
 * model, endpoint, dims and text hash, see `embeddingCacheKey`), kept in a store's plain
 * key → bytes map. The policy is core's, the same on every store: a least-recently-used
 * approximation in two generations that needs no per-entry bookkeeping in the store.
 *
 * - Entries live in the current generation or the one before. A lookup finds either; an entry
 *   found only in the older one is copied into the current one (it was used again).
 * - A generation holds at most half of `maxEntries`: when the current one is full, the older one
 *   is dropped and a new current one begins. So the cache holds at most `maxEntries`, everything
 *   used in the last half of them survives, and a hit in the current generation costs no write.
 * - {@link prune} (after a sync, or when `maxEntries` was lowered) drops generations, oldest
 *   first, until at most `maxEntries` entries remain.
 *
 * Vectors are stored as little-endian float32 bytes. The cache belongs to the workspace: a sync
 * into another store (`engram reindex --to`) reads the configured store's cache as its
 * `fallback`, so it does not pay for the embeddings again.
 */
export class EmbeddingCache {
  readonly #fallback: EmbeddingCache | undefined;
  #generation: number | undefined;
  /** Entries written into the current generation, as far as this instance knows. */
  #held: number | undefined;
  readonly #half: number;

  /**
   * @param kv Where the entries live.
   * @param options `maxEntries`: the most entries kept (default: no limit); `fallback`: another
   *   cache to ask for what `kv` lacks (what it finds is copied into `kv`).
   */
  constructor(
    private readonly kv: KeyValueStore,
    options: { maxEntries?: number; fallback?: EmbeddingCache | undefined } = {},
  ) {
    const max = options.maxEntries ?? Number.POSITIVE_INFINITY;
    checkMax(max);
    this.#half = Math.max(1, Math.floor(max / 2));
    this.#fallback = options.fallback;
  }

  /** The vectors known for `keys` (missing keys are absent from the map). */
  async get(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const unique = [...new Set(keys)];
    if (!unique.length) return found;
    const current = await this.#current();
    const lookups = unique.flatMap((key) => [entryKey(current, key), entryKey(current - 1, key)]);
    const values = await this.kv.get(lookups);
    const promote: Array<readonly [string, Uint8Array]> = [];
    for (const key of unique) {
      const fresh = values.get(entryKey(current, key));
      const old = fresh ? undefined : values.get(entryKey(current - 1, key));
      const bytes = fresh ?? old;
      if (!bytes) continue;
      found.set(key, bytesToVector(bytes));
      if (old) promote.push([key, old]);
    }
    if (this.#fallback && found.size < unique.length) {
      const more = await this.#fallback.get(unique.filter((key) => !found.has(key)));
      for (const [key, vector] of more) {
        found.set(key, vector);
        promote.push([key, vectorToBytes(vector)]);
      }
    }
    if (promote.length) await this.#write(promote);
    return found;
  }

  /** Insert or replace. */
  async set(entries: ReadonlyArray<readonly [key: string, vector: Float32Array]>): Promise<void> {
    await this.#write(entries.map(([key, vector]) => [key, vectorToBytes(vector)] as const));
  }

  /** Entries held (both generations; an entry in both counts twice). */
  async size(): Promise<number> {
    return (await this.kv.count(PREFIX)) - ((await this.kv.get([GENERATION_KEY])).size ? 1 : 0);
  }

  /**
   * Keep at most `maxEntries`: drop generations, oldest first, while more remain (a new current
   * generation begins each time). Returns how many entries went.
   */
  async prune(maxEntries: number): Promise<number> {
    checkMax(maxEntries);
    let dropped = 0;
    for (let turns = 0; turns < 2 && (await this.size()) > maxEntries; turns++) {
      this.#generation = await this.#read();
      dropped += await this.#turn(this.#generation);
    }
    return dropped;
  }

  /** Write entries into the current generation, beginning a new one whenever it is full. */
  async #write(entries: ReadonlyArray<readonly [key: string, bytes: Uint8Array]>): Promise<void> {
    let at = 0;
    while (at < entries.length) {
      const current = await this.#current();
      this.#held ??= await this.kv.count(generationPrefix(current));
      if (this.#held >= this.#half) {
        await this.#turn(current);
        continue;
      }
      const slice = entries.slice(at, at + (this.#half - this.#held));
      await this.kv.set(slice.map(([key, bytes]) => [entryKey(current, key), bytes] as const));
      this.#held += slice.length;
      at += slice.length;
    }
  }

  /** Drop the older generation (and any left from before) and begin a new current one. */
  async #turn(current: number): Promise<number> {
    const dropped = await this.kv.deletePrefix(generationPrefix(current - 1));
    await this.kv.set([[GENERATION_KEY, new TextEncoder().encode(String(current + 1))]]);
    this.#generation = current + 1;
    this.#held = 0;
    return dropped + (await this.#dropBelow(current));
  }

  /** Remove every entry. */
  async clear(): Promise<void> {
    await this.kv.deletePrefix(PREFIX);
    this.#generation = 0;
    this.#held = 0;
  }

  async #current(): Promise<number> {
    this.#generation ??= await this.#read();
    return this.#generation;
  }

  async #read(): Promise<number> {
    const bytes = (await this.kv.get([GENERATION_KEY])).get(GENERATION_KEY);
    const value = bytes ? Number(new TextDecoder().decode(bytes)) : 0;
    return Number.isInteger(value) && value >= 0 ? value : 0;
  }

  /** Drop generations older than `keep` that a concurrent turn may have left. */
  async #dropBelow(keep: number): Promise<number> {
    let dropped = 0;
    for (let generation = keep - 2; generation >= Math.max(0, keep - 4); generation--) {
      dropped += await this.kv.deletePrefix(generationPrefix(generation));
    }
    return dropped;
  }
}

function checkMax(maxEntries: number): void {
  if (Number.isNaN(maxEntries) || maxEntries < 0) {
    throw new EngramError("INVALID_ARGUMENT", `maxEntries ${maxEntries}: must be ≥ 0.`, {
      hint: "Pass the number of cache entries to keep (e.g. 50000).",
    });
  }
}

function generationPrefix(generation: number): string {
  return `${PREFIX}${generation}/`;
}

/**
 * The key-value entry under which {@link EmbeddingCache} finds `vector` for `key`: what a store
 * writes when it moves the embedding cache of one of its older layouts into its key-value map, so
 * no text is embedded again after the upgrade (the entry lands in generation 0, which the next
 * generations age out like any other).
 */
export function movedCacheEntry(key: string, vector: Float32Array): readonly [string, Uint8Array] {
  return [entryKey(0, key), vectorToBytes(vector)];
}

function entryKey(generation: number, key: string): string {
  return `${generationPrefix(generation)}${key}`;
}

/** True on the (usual) little-endian hosts, where float32 bytes are copied as they are. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A vector as little-endian float32 bytes (a copy). */
export function vectorToBytes(vector: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) {
    return new Uint8Array(
      vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength),
    );
  }
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] as number, true);
  return bytes;
}

/** Little-endian float32 bytes as a vector (a copy, so the bytes' alignment never matters). */
export function bytesToVector(bytes: Uint8Array): Float32Array {
  const vector = new Float32Array(Math.floor(bytes.byteLength / 4));
  if (LITTLE_ENDIAN) {
    new Uint8Array(vector.buffer).set(bytes.subarray(0, vector.length * 4));
    return vector;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}
