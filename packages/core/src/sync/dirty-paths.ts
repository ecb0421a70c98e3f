/**
 * Paths written since they were last indexed. A sync settles only the marks made before it
 * started: a path written while a sync runs may have been scanned already, so it stays dirty for
 * the next one.
 */
export class DirtyPaths {
  /** Path → the mark's sequence number. */
  readonly #marks = new Map<string, number>();
  #seq = 0;

  /** Record a write to `path`. */
  mark(path: string): void {
    this.#marks.set(path, ++this.#seq);
  }

  get size(): number {
    return this.#marks.size;
  }

  /** The dirty paths now. */
  paths(): string[] {
    return [...this.#marks.keys()];
  }

  /** Taken when a sync starts; pass it to {@link settle} when that sync has finished. */
  snapshot(): number {
    return this.#seq;
  }

  /** Forget the marks made before `snapshot` (for `paths` only, when given). */
  settle(snapshot: number, paths?: readonly string[]): void {
    const only = paths ? new Set(paths) : undefined;
    for (const [path, seq] of this.#marks) {
      if (seq <= snapshot && (!only || only.has(path))) this.#marks.delete(path);
    }
  }
}
