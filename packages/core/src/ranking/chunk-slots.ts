import { compareChunkOrder } from "../driver/chunk-order.js";
import type { SearchFilter } from "../driver/records.js";

/** What the in-memory index keeps of a chunk besides its terms and vector. */
export interface SlotChunk {
  id: string;
  path: string;
  tier: string;
  source: string;
  startLine: number;
  endLine: number;
}

/** True when the chunk in a slot passes a search filter. */
export type SlotFilter = (slot: number) => boolean;

const INITIAL_CAPACITY = 1024;

/**
 * The chunks of the in-memory index, one numbered slot each: id, line range and labels (tier,
 * source and path as small codes, so a search filter is a few array reads per candidate), and
 * whether the slot is live. Slots are handed out in order and freed by path; {@link compact}
 * renumbers the live ones.
 */
export class ChunkSlots {
  #ids: string[] = [];
  #start = new Uint32Array(INITIAL_CAPACITY);
  #end = new Uint32Array(INITIAL_CAPACITY);
  #tier = new Uint8Array(INITIAL_CAPACITY);
  #source = new Uint8Array(INITIAL_CAPACITY);
  #path = new Uint32Array(INITIAL_CAPACITY);
  #live = new Uint8Array(INITIAL_CAPACITY);
  #labels = new Interned(255);
  #paths = new Interned(2 ** 32 - 1);
  /** Live slots by path code. */
  #byPath = new Map<number, number[]>();
  #used = 0;
  #dead = 0;

  /** Slots handed out (live and dead). */
  get used(): number {
    return this.#used;
  }

  /** Live slots. */
  get live(): number {
    return this.#used - this.#dead;
  }

  /** Dead slots, not yet compacted away. */
  get dead(): number {
    return this.#dead;
  }

  /** Per slot: 1 while live (read-only view for scans). */
  get liveFlags(): Uint8Array {
    return this.#live;
  }

  /** Bytes held, estimated. */
  get bytes(): number {
    return this.#start.length * (4 + 4 + 1 + 1 + 4 + 1 + 8) + this.#used * 56;
  }

  /** A new live slot for `chunk`. */
  add(chunk: SlotChunk): number {
    if (this.#used === this.#start.length) this.#grow(this.#used * 2);
    const slot = this.#used++;
    this.#ids[slot] = chunk.id;
    this.#start[slot] = chunk.startLine;
    this.#end[slot] = chunk.endLine;
    this.#tier[slot] = this.#labels.code(chunk.tier);
    this.#source[slot] = this.#labels.code(chunk.source);
    const path = this.#paths.code(chunk.path);
    this.#path[slot] = path;
    this.#live[slot] = 1;
    const slots = this.#byPath.get(path);
    if (slots) slots.push(slot);
    else this.#byPath.set(path, [slot]);
    return slot;
  }

  /** Free the slots of `path`'s chunks; returns them (none when the path holds none). */
  removePath(path: string): readonly number[] {
    const code = this.#paths.find(path);
    if (code === undefined) return [];
    const slots = this.#byPath.get(code);
    if (!slots) return [];
    this.#byPath.delete(code);
    for (const slot of slots) this.#live[slot] = 0;
    this.#dead += slots.length;
    return slots;
  }

  isLive(slot: number): boolean {
    return this.#live[slot] === 1;
  }

  id(slot: number): string {
    return this.#ids[slot] as string;
  }

  path(slot: number): string {
    return this.#paths.value(this.#path[slot] as number);
  }

  /** Paths that hold live chunks. */
  paths(): string[] {
    return [...this.#byPath.keys()].map((code) => this.#paths.value(code));
  }

  /** The slot's chunk as the index holds it. */
  chunk(slot: number): SlotChunk {
    return {
      id: this.#ids[slot] as string,
      path: this.path(slot),
      tier: this.#labels.value(this.#tier[slot] as number),
      source: this.#labels.value(this.#source[slot] as number),
      startLine: this.#start[slot] as number,
      endLine: this.#end[slot] as number,
    };
  }

  /** The contract's tie order between two slots (path, start line, end line, id). */
  compare(a: number, b: number): number {
    return compareChunkOrder(this.#location(a), this.#location(b));
  }

  /**
   * `filter` as a predicate on live slots, or undefined when it restricts nothing. Tiers and
   * sources compare by code; a path prefix is a plain, case-sensitive string prefix.
   */
  filter(filter: SearchFilter | undefined): SlotFilter | undefined {
    if (!filter?.tiers && !filter?.sources && !filter?.pathPrefix) return undefined;
    const tiers = filter.tiers && this.#labels.mask(filter.tiers);
    const sources = filter.sources && this.#labels.mask(filter.sources);
    const prefix = filter.pathPrefix || undefined;
    const pathOk = new Map<number, boolean>();
    return (slot) => {
      if (tiers && tiers[this.#tier[slot] as number] !== 1) return false;
      if (sources && sources[this.#source[slot] as number] !== 1) return false;
      if (prefix === undefined) return true;
      const code = this.#path[slot] as number;
      let ok = pathOk.get(code);
      if (ok === undefined) {
        ok = this.#paths.value(code).startsWith(prefix);
        pathOk.set(code, ok);
      }
      return ok;
    };
  }

  /**
   * Renumber the live slots from 0, in their order; returns the new number of each old slot (-1:
   * dead). Labels keep their codes.
   */
  compact(): Int32Array {
    const remap = new Int32Array(this.#used).fill(-1);
    let to = 0;
    for (let from = 0; from < this.#used; from++) {
      if (this.#live[from] !== 1) continue;
      remap[from] = to;
      if (to !== from) {
        this.#ids[to] = this.#ids[from] as string;
        this.#start[to] = this.#start[from] as number;
        this.#end[to] = this.#end[from] as number;
        this.#tier[to] = this.#tier[from] as number;
        this.#source[to] = this.#source[from] as number;
        this.#path[to] = this.#path[from] as number;
        this.#live[to] = 1;
      }
      to++;
    }
    this.#ids.length = to;
    this.#live.fill(0, to, this.#used);
    this.#used = to;
    this.#dead = 0;
    for (const [code, slots] of this.#byPath) {
      this.#byPath.set(
        code,
        slots.map((slot) => remap[slot] as number),
      );
    }
    return remap;
  }

  /** Forget every slot. */
  clear(): void {
    this.#ids = [];
    this.#live.fill(0);
    this.#byPath.clear();
    this.#used = 0;
    this.#dead = 0;
    this.#paths = new Interned(2 ** 32 - 1);
  }

  #location(slot: number) {
    return {
      path: this.path(slot),
      startLine: this.#start[slot] as number,
      endLine: this.#end[slot] as number,
      id: this.#ids[slot] as string,
    };
  }

  #grow(capacity: number): void {
    this.#start = resized(this.#start, capacity);
    this.#end = resized(this.#end, capacity);
    this.#tier = resized(this.#tier, capacity);
    this.#source = resized(this.#source, capacity);
    this.#path = resized(this.#path, capacity);
    this.#live = resized(this.#live, capacity);
  }
}

/** A typed array of `size` elements holding the first ones of `old`. */
export function resized<
  T extends
    | Int8Array
    | Uint8Array
    | Uint16Array
    | Uint32Array
    | Int32Array
    | Float64Array
    | Float32Array,
>(old: T, size: number): T {
  const next = new (old.constructor as new (n: number) => T)(size);
  next.set(old.subarray(0, Math.min(old.length, size)) as never);
  return next;
}

/** Strings numbered in order of first use, so a slot stores a small code instead. */
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

  find(value: string): number | undefined {
    return this.#codes.get(value);
  }

  value(code: number): string {
    return this.#values[code] as string;
  }

  /** Per code: 1 when its value is in `values`. */
  mask(values: readonly string[]): Uint8Array {
    const mask = new Uint8Array(this.maxCode < 256 ? 256 : this.#values.length + 1);
    for (const value of values) {
      const code = this.#codes.get(value);
      if (code !== undefined) mask[code] = 1;
    }
    return mask;
  }
}
