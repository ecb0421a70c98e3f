import type { Filterable } from "@engram/core/driver";

/**
 * The path, tier and source of each slot of an in-memory copy, as small codes (a byte per label,
 * four bytes per path), so every search filter applies while scanning the copy.
 */
export class SlotLabels {
  #tier: Uint8Array;
  #source: Uint8Array;
  #path: Uint32Array;
  #labels = new Interned(255);
  /** Paths of emptied slots stay until the copy is reloaded: files are mostly re-indexed in place. */
  #paths = new Interned(2 ** 32 - 1);

  constructor(capacity: number) {
    this.#tier = new Uint8Array(capacity);
    this.#source = new Uint8Array(capacity);
    this.#path = new Uint32Array(capacity);
  }

  set(slot: number, chunk: Filterable): void {
    this.#tier[slot] = this.#labels.code(chunk.tier);
    this.#source[slot] = this.#labels.code(chunk.source);
    this.#path[slot] = this.#paths.code(chunk.path);
  }

  chunk(slot: number): Filterable {
    return {
      path: this.#paths.value(this.#path[slot] as number),
      tier: this.#labels.value(this.#tier[slot] as number),
      source: this.#labels.value(this.#source[slot] as number),
    };
  }

  /**
   * A copy whose slot `i` holds this one's slot `order[i]` labels (same label numbering), with
   * room for `capacity` slots.
   */
  reordered(order: Uint32Array, capacity = order.length): SlotLabels {
    const copy = new SlotLabels(Math.max(capacity, order.length));
    copy.#labels = this.#labels;
    copy.#paths = this.#paths;
    order.forEach((from, to) => {
      copy.#tier[to] = this.#tier[from] as number;
      copy.#source[to] = this.#source[from] as number;
      copy.#path[to] = this.#path[from] as number;
    });
    return copy;
  }

  /** Copy slot `from`'s labels to slot `to`. */
  move(from: number, to: number): void {
    this.#tier[to] = this.#tier[from] as number;
    this.#source[to] = this.#source[from] as number;
    this.#path[to] = this.#path[from] as number;
  }

  /** Room for `capacity` slots (the first ones kept). */
  resize(capacity: number): void {
    this.#tier = resized(this.#tier, capacity);
    this.#source = resized(this.#source, capacity);
    this.#path = resized(this.#path, capacity);
  }
}

/** A typed array of `size` elements holding the first ones of `old`. */
export function resized<T extends Int8Array | Uint8Array | Uint32Array | Int32Array | Float64Array>(
  old: T,
  size: number,
): T {
  const next = new (old.constructor as new (n: number) => T)(size);
  next.set(old.subarray(0, Math.min(old.length, size)));
  return next;
}

/** Strings numbered in order of first use, so a row stores a small code instead. */
class Interned {
  #values: string[] = [];
  #codes = new Map<string, number>();

  constructor(private readonly maxCode: number) {}

  code(value: string): number {
    let code = this.#codes.get(value);
    if (code === undefined) {
      code = this.#values.length;
      if (code > this.maxCode) throw new Error(`more than ${this.maxCode + 1} distinct labels`);
      this.#values.push(value);
      this.#codes.set(value, code);
    }
    return code;
  }

  value(code: number): string {
    return this.#values[code] as string;
  }
}
