/**
 * Unsigned LEB128 varints: 7 bits a byte, low bits first, the high bit set on every byte but the
 * last. Values up to 2^53 − 1 (arithmetic, not 32-bit shifts, so none wrap).
 */

/** Bytes {@link writeVarint} takes for `value`. */
export function varintLength(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  let bytes = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) bytes++;
  return bytes;
}

/** Write `value` at `pos` (the buffer must have room); returns the position after it. */
export function writeVarint(buffer: Uint8Array, pos: number, value: number): number {
  if (value < 0x80) {
    buffer[pos] = value;
    return pos + 1;
  }
  if (value < 0x4000) {
    buffer[pos] = (value & 0x7f) | 0x80;
    buffer[pos + 1] = value >>> 7;
    return pos + 2;
  }
  let v = value;
  let at = pos;
  while (v >= 0x80) {
    buffer[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buffer[at++] = v;
  return at;
}

/** Reads varints one after another from a byte range. */
export class VarintReader {
  /** Position of the next byte to read. */
  pos: number;

  constructor(
    private bytes: Uint8Array,
    start = 0,
    private end = bytes.length,
  ) {
    this.pos = start;
  }

  /** Start over on another range. */
  reset(bytes: Uint8Array, start = 0, end = bytes.length): void {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }

  /** True while bytes are left. */
  get more(): boolean {
    return this.pos < this.end;
  }

  /** The next value; throws when the range ends before the varint does. */
  next(): number {
    const bytes = this.bytes;
    if (this.pos >= this.end) throw cutOff();
    let byte = bytes[this.pos++] as number;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    while (byte >= 0x80) {
      if (this.pos >= this.end) throw cutOff();
      byte = bytes[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      scale *= 0x80;
    }
    return value;
  }
}

function cutOff(): RangeError {
  return new RangeError("varint cut off by the end of its bytes");
}
