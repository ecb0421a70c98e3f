import type { SearchFilter } from "../driver/records.js";
import { rankWithCommonTerms } from "./bm25.js";
import { ChunkSlots, type SlotChunk } from "./chunk-slots.js";
import { TermPostings } from "./term-postings.js";
import { type VectorKernel, vectorKernel } from "./vector-kernel.js";
import { type ExactVectors, KthSmallest, VectorMatrix } from "./vector-matrix.js";

/** A chunk as the in-memory index takes it: where it is, its labels, terms and vector. */
export interface IndexedChunk extends ScannedChunk {
  /** Analysed terms, in order, repeats kept (as core's analyzer produced them). */
  terms: readonly string[];
}

/** A chunk as a store's term-count scan gives it: where it is, its labels and its vector. */
export interface ScannedChunk extends SlotChunk {
  embedding: Float32Array | null;
}

/**
 * A page of a store's term-count scan (`MemoryStore.scanTermCounts`): each chunk's terms as the
 * store's own term ids with counts, so that loading an index makes no string per occurrence. The
 * arrays may be reused for the next page: read a page before asking for the next.
 */
export interface TermCountsPage {
  /** Chunks on the page. */
  size: number;
  /** Per chunk: where its pairs end in {@link ids} and {@link counts} (the first starts at 0). */
  ends: Uint32Array;
  /** Term ids (the store's numbering, whole numbers ≥ 0), each at most once per chunk. */
  ids: Int32Array;
  /** How often the chunk holds each term (≥ 1; they sum to its analysed length). */
  counts: Int32Array;
  /** When the scan was asked for names: the term of each id on the page not named before in it. */
  names?: ReadonlyMap<number, string>;
  /** When the scan was asked for chunks: the page's chunks, in order (vectors may be reused too). */
  chunks?: ScannedChunk[];
}

/** What a term-count scan gives besides the ids and counts (see {@link TermCountsPage}). */
export interface TermCountsScan {
  /** Name each term id the first time the scan meets it. */
  names?: boolean;
  /** Give each chunk's location, labels and vector. */
  chunks?: boolean;
}

/** A hit of the in-memory index: the chunk (as the index holds it) and its score. */
export interface IndexHit {
  chunk: SlotChunk;
  score: number;
}

/** How an {@link InMemoryIndex} is built. */
export interface InMemoryIndexOptions {
  /**
   * The float32 vectors of chunks, by id, for exact rescoring (the index keeps int8 copies).
   * Without it the index keeps every float32 vector itself (four times the memory).
   */
  exactVectors?: (ids: readonly string[]) => Promise<ReadonlyMap<string, Float32Array>>;
  /** The int8 scan (default: USearch's SIMD kernel when installed, else JavaScript). */
  kernel?: VectorKernel;
  /**
   * Vectors the index will hold, when known (a load from a store): their rows are allocated at
   * once instead of doubling, which at 100k × 384 saves ~12 MB held and ~40 MB of copies.
   */
  expectedVectors?: number;
}

/** A load under way: the store's term ids in this index's numbering (-1: not named yet). */
interface IndexLoad {
  own: Int32Array;
  /** Chunks pass 1 counted and pass 2 added. */
  counted: number;
  added: number;
  scratch?: Int32Array;
}

/** Dead slots above which the index renumbers (and so drops) them: a quarter of all slots. */
const COMPACT_SHARE = 0.25;
const COMPACT_MIN = 4096;

/**
 * engram's in-memory index: BM25 over the chunks' analysed terms and exact cosine k-NN over their
 * vectors, with top-k in the contract's order (score, then path, start line, end line, id). The
 * only place keyword ranking is implemented in JavaScript (see `bm25.ts`): the in-memory store is
 * a chunk table over it, and parity tests hold every store to it.
 *
 * Compact: postings as varints (2–3 bytes each), vectors as int8 rows, labels as codes. Chunks
 * are added and removed by path, as stores write them. Searches are synchronous for text and
 * asynchronous for vectors (exact rescoring may read a store).
 */
export class InMemoryIndex {
  readonly #slots = new ChunkSlots();
  readonly #postings = new TermPostings();
  #matrix: VectorMatrix | undefined;
  readonly #kernel: VectorKernel;
  readonly #exact: ExactVectors;
  readonly #expectedVectors: number;
  /** A load under way (see {@link loadTerms}). */
  #load: IndexLoad | undefined;
  /** Float32 vectors by slot, when no exact source was given. */
  readonly #own: Map<number, Float32Array> | undefined;

  constructor(options: InMemoryIndexOptions = {}) {
    this.#kernel = options.kernel ?? vectorKernel();
    this.#expectedVectors = options.expectedVectors ?? 0;
    const source = options.exactVectors;
    if (source) {
      this.#own = undefined;
      this.#exact = async (slots) => {
        const byId = await source(slots.map((slot) => this.#slots.id(slot)));
        const out = new Map<number, Float32Array>();
        for (const slot of slots) {
          const vector = byId.get(this.#slots.id(slot));
          if (vector) out.set(slot, vector);
        }
        return out;
      };
    } else {
      const own = new Map<number, Float32Array>();
      this.#own = own;
      this.#exact = (slots) => {
        const out = new Map<number, Float32Array>();
        for (const slot of slots) {
          const vector = own.get(slot);
          if (vector) out.set(slot, vector);
        }
        return out;
      };
    }
  }

  /** Live chunks. */
  get size(): number {
    return this.#slots.live;
  }

  /** Chunks with a vector. */
  get vectors(): number {
    return this.#matrix?.size ?? 0;
  }

  /** Dimensions of the vectors held (null: none yet). */
  get dims(): number | null {
    return this.#matrix?.dims ?? null;
  }

  /** Memory held, estimated in bytes. */
  get bytes(): number {
    return this.#slots.bytes + this.#postings.bytes + (this.#matrix?.bytes ?? 0);
  }

  /** Paths that hold chunks. */
  paths(): string[] {
    return this.#slots.paths();
  }

  /**
   * Add chunks (none of their paths may hold chunks in the index: remove them first). A vector
   * whose dimensions differ from those held throws; the index is then unchanged only for the
   * chunks before it, so callers check dimensions first (stores do).
   */
  add(chunks: Iterable<IndexedChunk>): void {
    if (this.#load) throw new Error("add during a load");
    for (const chunk of chunks) this.#postings.add(this.#addChunk(chunk), chunk.terms);
    if (this.#postings.mergeDue)
      this.#postings.merge(this.#slots.liveFlags, undefined, this.#slots.used);
  }

  /** A slot for `chunk`, and its vector when it has one; returns the slot. */
  #addChunk(chunk: ScannedChunk): number {
    const slot = this.#slots.add(chunk);
    if (chunk.embedding) {
      this.#matrix ??= new VectorMatrix(
        chunk.embedding.length,
        this.#kernel,
        this.#expectedVectors,
      );
      if (chunk.embedding.length !== this.#matrix.dims) {
        throw new Error(
          `a ${chunk.embedding.length}-dimensional vector in an index of ${this.#matrix.dims}`,
        );
      }
      this.#matrix.add(slot, chunk.embedding);
      this.#own?.set(slot, chunk.embedding);
    }
    return slot;
  }

  /**
   * Pass 1 of loading a store into this empty index: a page of its term-count scan with names
   * (see {@link TermCountsPage}). Pass 2 ({@link loadChunks}) reads the scan again with chunks,
   * and {@link loadDone} ends the load. The postings are laid out from pass 1 and written once
   * in pass 2: no string or array per term occurrence, no log, no merge. Searches before
   * {@link loadDone} are not meant to be answered.
   */
  loadTerms(page: TermCountsPage): void {
    if (!this.#load) {
      if (this.#slots.used !== 0) throw new Error("a load needs an empty index");
      this.#load = { own: new Int32Array(1024).fill(-1), counted: 0, added: 0 };
    }
    const load = this.#load;
    if (page.names) {
      for (const [id, term] of page.names) {
        if (id >= load.own.length) {
          const own = new Int32Array(Math.max(id + 1, load.own.length * 2)).fill(-1);
          own.set(load.own);
          load.own = own;
        }
        load.own[id] = this.#postings.termId(term);
      }
    }
    const ids = this.#ownIds(page);
    let start = 0;
    for (let i = 0; i < page.size; i++) {
      const end = page.ends[i] as number;
      this.#postings.bulkCount(load.counted++, ids, page.counts, start, end);
      start = end;
    }
  }

  /** Pass 2 of a load (see {@link loadTerms}): a page of the same scan, with chunks. */
  loadChunks(page: TermCountsPage): void {
    const load = this.#load;
    const chunks = page.chunks;
    if (!load || !chunks || chunks.length !== page.size) {
      throw new Error("loadChunks takes the pages of loadTerms again, with chunks");
    }
    const ids = this.#ownIds(page);
    let start = 0;
    for (let i = 0; i < page.size; i++) {
      const chunk = chunks[i] as ScannedChunk;
      // A page's vectors may be views the next page overwrites: the index keeps copies.
      const own =
        this.#own && chunk.embedding ? { ...chunk, embedding: chunk.embedding.slice() } : chunk;
      const slot = this.#addChunk(own);
      if (slot >= load.counted) throw new Error("the store changed between the passes of a load");
      const end = page.ends[i] as number;
      this.#postings.bulkWrite(slot, ids, page.counts, start, end);
      start = end;
    }
    load.added += page.size;
  }

  /** End a load (see {@link loadTerms}); throws when the store changed between its passes. */
  loadDone(): void {
    const load = this.#load;
    this.#load = undefined;
    if (load && load.added !== load.counted) {
      throw new Error("the store changed between the passes of a load");
    }
    this.#postings.bulkDone();
  }

  /** The page's term ids in this index's numbering (a scratch array, valid until the next page). */
  #ownIds(page: TermCountsPage): Int32Array {
    const load = this.#load as IndexLoad;
    const n = page.ends[page.size - 1] ?? 0;
    if (load.scratch === undefined || load.scratch.length < n) {
      load.scratch = new Int32Array(Math.max(n, 1024, (load.scratch?.length ?? 0) * 2));
    }
    const out = load.scratch;
    const own = load.own;
    for (let i = 0; i < n; i++) {
      const id = page.ids[i] as number;
      const mine = id < own.length ? (own[id] as number) : -1;
      if (mine < 0) throw new Error(`the store's term id ${id} was never named`);
      out[i] = mine;
    }
    return out;
  }

  /** Remove every chunk of these paths (unknown paths are ignored). */
  removePaths(paths: Iterable<string>): void {
    for (const path of paths) {
      for (const slot of this.#slots.removePath(path)) {
        this.#postings.remove(slot);
        this.#matrix?.remove(slot);
        this.#own?.delete(slot);
      }
    }
    if (this.#slots.dead > COMPACT_MIN && this.#slots.dead > COMPACT_SHARE * this.#slots.used) {
      this.#compact();
    }
  }

  /** Drop every vector (chunks and terms stay). */
  dropVectors(): void {
    this.#matrix = undefined;
    this.#own?.clear();
  }

  /** Forget everything (a load under way too). */
  clear(): void {
    this.#load = undefined;
    this.#slots.clear();
    this.#postings.clear();
    this.dropVectors();
  }

  /** Live chunks holding `term`. */
  docFreq(term: string): number {
    return this.#postings.docFreq(term, this.#slots.liveFlags);
  }

  /**
   * Up to `k` chunks holding any of `terms`, best first by BM25 (see `bm25.ts`), equal scores in
   * the contract's order; only chunks `filter` passes. Empty or duplicate terms are ignored.
   */
  searchText(terms: readonly string[], k: number, filter?: SearchFilter): IndexHit[] {
    const unique = [...new Set(terms)].filter((term) => term.length > 0);
    if (!unique.length || k < 1) return [];
    const live = this.#slots.liveFlags;
    const present = unique.filter((term) => this.#postings.docFreq(term, live) > 0);
    const accept = this.#slots.filter(filter);
    return rankWithCommonTerms(
      present,
      (term) => this.#postings.docFreq(term, live),
      this.#postings.rows,
      k,
      (chosen) => {
        const best = new TopSlots(k, this.#slots);
        this.#postings.score(chosen, live, accept, (slot, score) => best.offer(slot, score));
        return best.hits();
      },
    );
  }

  /**
   * Up to `k` chunks nearest to `vector` by cosine similarity (exact), best first, equal scores in
   * the contract's order; only chunks `filter` passes. A zero vector finds nothing.
   */
  async searchVector(vector: Float32Array, k: number, filter?: SearchFilter): Promise<IndexHit[]> {
    const matrix = this.#matrix;
    if (!matrix || k < 1) return [];
    if (vector.length !== matrix.dims) {
      throw new Error(`a ${vector.length}-dimensional query in an index of ${matrix.dims}`);
    }
    const found = await matrix.nearest(vector, k, this.#slots.filter(filter), this.#exact);
    const best = new TopSlots(k, this.#slots);
    for (const { slot, score } of found) if (this.#slots.isLive(slot)) best.offer(slot, score);
    return best.hits();
  }

  #compact(): void {
    const live = this.#slots.liveFlags.slice();
    const remap = this.#slots.compact();
    this.#postings.merge(live, remap, this.#slots.used);
    this.#matrix?.renumber(remap, this.#slots.used);
    if (this.#own) {
      const moved = [...this.#own].flatMap(([slot, vector]) => {
        const to = remap[slot] ?? -1;
        return to >= 0 ? [[to, vector] as const] : [];
      });
      this.#own.clear();
      for (const [slot, vector] of moved) this.#own.set(slot, vector);
    }
  }
}

/** The best `k` of the offered slots and every slot tied with the k-th, then cut in tie order. */
class TopSlots {
  readonly #kth: KthSmallest;
  readonly #offered: Array<{ slot: number; score: number }> = [];

  constructor(
    private readonly k: number,
    private readonly slots: ChunkSlots,
  ) {
    this.#kth = new KthSmallest(k);
  }

  offer(slot: number, score: number): void {
    if (-score > this.#kth.kth) return;
    this.#kth.add(-score);
    this.#offered.push({ slot, score });
  }

  hits(): IndexHit[] {
    const cut = -this.#kth.kth;
    return this.#offered
      .filter((hit) => hit.score >= cut)
      .sort((a, b) => b.score - a.score || this.slots.compare(a.slot, b.slot))
      .slice(0, this.k)
      .map(({ slot, score }) => ({ chunk: this.slots.chunk(slot), score }));
  }
}
