const encoder = new TextEncoder();

/**
 * MurmurHash3 (x86, 32-bit) of `text`'s UTF-8 bytes, as an unsigned integer: the hash Qdrant's own
 * BM25 uses for token ids (it keeps the absolute value of the signed result; this keeps all 32
 * bits). Stable across platforms and releases, so a term maps to the same sparse index in every
 * process that ever writes or queries a collection.
 */
export function murmur3(text: string, seed = 0): number {
  const bytes = encoder.encode(text);
  const length = bytes.length;
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h = seed >>> 0;
  const blocks = length & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k =
      (bytes[i] as number) |
      ((bytes[i + 1] as number) << 8) |
      ((bytes[i + 2] as number) << 16) |
      ((bytes[i + 3] as number) << 24);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (length & 3) {
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: MurmurHash3's tail falls through by design
    case 3:
      k ^= (bytes[blocks + 2] as number) << 16;
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: as above
    case 2:
      k ^= (bytes[blocks + 1] as number) << 8;
    case 1:
      k ^= bytes[blocks] as number;
      k = Math.imul(k, c1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, c2);
      h ^= k;
  }
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
