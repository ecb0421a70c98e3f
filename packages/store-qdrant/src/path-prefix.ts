const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = (1n << 64n) - 1n;

/**
 * Qdrant cannot match a keyword by prefix, so every chunk carries the keys of all its path's
 * prefixes and a prefix filter is one exact match on that array (payload-indexed). A key is a
 * 52-bit hash (FNV-1a 64 over the UTF-16 code units, top 52 bits: a safe integer) rather than the
 * prefix itself, so the payload grows with the path's length, not its square. Prefixes are taken by
 * UTF-16 code unit, as `String.prototype.startsWith` compares. Two prefixes share a key with odds of
 * about 2⁻⁵²; results are checked with `startsWith` as well, so a collision can only cost a hit.
 */
export function pathPrefixKeys(path: string): number[] {
  const keys: number[] = [];
  let hash = FNV_OFFSET;
  for (let i = 0; i < path.length; i++) {
    hash = step(hash, path.charCodeAt(i));
    keys.push(toKey(hash));
  }
  return [...new Set(keys)];
}

/** The key of one prefix, equal to the matching entry of {@link pathPrefixKeys}. */
export function prefixKey(prefix: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < prefix.length; i++) hash = step(hash, prefix.charCodeAt(i));
  return toKey(hash);
}

function step(hash: bigint, codeUnit: number): bigint {
  let h = hash;
  h = ((h ^ BigInt(codeUnit & 0xff)) * FNV_PRIME) & MASK_64;
  h = ((h ^ BigInt(codeUnit >>> 8)) * FNV_PRIME) & MASK_64;
  return h;
}

function toKey(hash: bigint): number {
  return Number(hash >> 12n);
}
