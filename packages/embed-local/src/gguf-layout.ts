import { type FileHandle, open } from "node:fs/promises";

/**
 * A structural check of a GGUF file's header, made before node-llama-cpp reads it.
 *
 * node-llama-cpp's `readGgufFileInfo` trusts the counts and lengths in the header: past the end of
 * the file its reader returns zeros, so a damaged header (`GGUF\x03\x00\x00\x00garbage`, a tensor
 * count of 2^61) makes it loop and allocate for as long as it is left running. This walk reads
 * the same structure (GGUF v2/v3, github.com/ggml-org/ggml/blob/master/docs/gguf.md) and stops at
 * the first count or length that the bytes left in the file cannot hold, so every file that
 * passes is one the reader finishes in time proportional to its header.
 */

/** Why a file is not a well-formed GGUF file; `at` is the byte offset of the problem. */
export class GgufLayoutError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
    this.name = "GgufLayoutError";
  }
}

/** What the walk learnt. */
export interface GgufLayout {
  version: number;
  tensorCount: number;
  metadataCount: number;
  /** Where the tensor infos end (before alignment padding). */
  headerEnd: number;
}

/** Fixed sizes of the scalar value types (GGUF `gguf_type`), by id. */
const SCALAR_SIZE: Readonly<Record<number, number>> = {
  0: 1, // u8
  1: 1, // i8
  2: 2, // u16
  3: 2, // i16
  4: 4, // u32
  5: 4, // i32
  6: 4, // f32
  7: 1, // bool
  10: 8, // u64
  11: 8, // i64
  12: 8, // f64
};
const STRING = 8;
const ARRAY = 9;
/** ggml's GGML_MAX_DIMS. */
const MAX_DIMS = 4;
/** Longest key llama.cpp accepts is far below this; a longer one is garbage. */
const MAX_KEY_BYTES = 64 * 1024;
/** Smallest encoding of one metadata entry (empty key, type, a 1-byte value) and one tensor info. */
const MIN_ENTRY_BYTES = 8 + 4 + 1;
const MIN_TENSOR_BYTES = 8 + 4 + 4 + 8;
const WINDOW = 1024 * 1024;

/**
 * Walk the header of the GGUF file at `path` (`size` bytes): magic, a supported version, metadata
 * entries and tensor infos, every count and length checked against the bytes left.
 *
 * @throws GgufLayoutError naming what is wrong and where.
 */
export async function checkGgufLayout(path: string, size: number): Promise<GgufLayout> {
  const file = await open(path, "r");
  try {
    const r = new Reader(file, size);
    if ((await r.bytes(4)).toString("latin1") !== "GGUF") {
      throw new GgufLayoutError('it does not start with "GGUF"', 0);
    }
    const version = await r.u32();
    if (version !== 2 && version !== 3) {
      throw new GgufLayoutError(
        version === 1
          ? "it is GGUF version 1, which llama.cpp no longer reads"
          : `it claims GGUF version ${version}; only versions 2 and 3 exist`,
        4,
      );
    }
    const tensorCount = await r.count("tensor count", MIN_TENSOR_BYTES);
    const metadataCount = await r.count("metadata entry count", MIN_ENTRY_BYTES);
    if (tensorCount * MIN_TENSOR_BYTES + metadataCount * MIN_ENTRY_BYTES > r.left) {
      throw new GgufLayoutError(
        `its header claims ${metadataCount} metadata entries and ${tensorCount} tensors, more than the ${size}-byte file holds`,
        8,
      );
    }
    for (let i = 0; i < metadataCount; i++) {
      await r.string(`metadata key ${i + 1}`, MAX_KEY_BYTES);
      await value(r, await r.u32(), `metadata entry ${i + 1}`);
    }
    for (let i = 0; i < tensorCount; i++) {
      await r.string(`tensor name ${i + 1}`, MAX_KEY_BYTES);
      const dims = await r.u32();
      if (dims < 1 || dims > MAX_DIMS) {
        throw new GgufLayoutError(`tensor ${i + 1} claims ${dims} dimensions`, r.pos - 4);
      }
      r.skip(dims * 8 + 4 + 8, `tensor info ${i + 1}`);
    }
    return { version, tensorCount, metadataCount, headerEnd: r.pos };
  } finally {
    await file.close();
  }
}

async function value(r: Reader, type: number, what: string): Promise<void> {
  const scalar = SCALAR_SIZE[type];
  if (scalar !== undefined) return r.skip(scalar, what);
  if (type === STRING) return void (await r.string(what, Number.POSITIVE_INFINITY));
  if (type !== ARRAY)
    throw new GgufLayoutError(`${what} has unknown value type ${type}`, r.pos - 4);
  const itemType = await r.u32();
  const itemSize = SCALAR_SIZE[itemType];
  if (itemSize === undefined && itemType !== STRING) {
    throw new GgufLayoutError(`${what} is an array of unknown type ${itemType}`, r.pos - 4);
  }
  const length = await r.count(`${what}'s length`, itemSize ?? 8);
  if (itemSize !== undefined) return r.skip(length * itemSize, what);
  for (let i = 0; i < length; i++) await r.string(what, Number.POSITIVE_INFINITY);
}

/** A forward reader over a window of the file that never reads past `size`. */
class Reader {
  pos = 0;
  #buffer = Buffer.alloc(0);
  #start = 0;

  constructor(
    readonly file: FileHandle,
    readonly size: number,
  ) {}

  get left(): number {
    return this.size - this.pos;
  }

  skip(n: number, what: string): void {
    if (n > this.left) {
      throw new GgufLayoutError(`${what} runs past the end of the file`, this.pos);
    }
    this.pos += n;
  }

  async bytes(n: number): Promise<Buffer> {
    if (n > this.left) {
      throw new GgufLayoutError(`the header runs past the end of the file`, this.pos);
    }
    const end = this.pos + n;
    if (this.pos < this.#start || end > this.#start + this.#buffer.length) {
      const length = Math.min(Math.max(n, WINDOW), this.size - this.pos);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await this.file.read(buffer, 0, length, this.pos);
      if (bytesRead < n) throw new GgufLayoutError("the file ended while it was read", this.pos);
      this.#buffer = buffer.subarray(0, bytesRead);
      this.#start = this.pos;
    }
    const out = this.#buffer.subarray(this.pos - this.#start, end - this.#start);
    this.pos = end;
    return out;
  }

  async u32(): Promise<number> {
    return (await this.bytes(4)).readUInt32LE(0);
  }

  /** A u64 count whose items take at least `itemBytes` each: it must fit in what is left. */
  async count(what: string, itemBytes: number): Promise<number> {
    const at = this.pos;
    const n = (await this.bytes(8)).readBigUInt64LE(0);
    if (n * BigInt(itemBytes) > BigInt(this.left)) {
      throw new GgufLayoutError(
        `its ${what} (${n}) does not fit in the ${this.left} bytes left of the ${this.size}-byte file`,
        at,
      );
    }
    return Number(n);
  }

  /** A GGUF string (u64 length + bytes), skipped. */
  async string(what: string, maxBytes: number): Promise<void> {
    const at = this.pos;
    const length = await this.count(`${what}'s length`, 1);
    if (length > maxBytes) throw new GgufLayoutError(`${what} is ${length} bytes long`, at);
    this.skip(length, what);
  }
}
