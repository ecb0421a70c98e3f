/** Where a chunk sits: what the contract's tie order compares. */
export interface ChunkLocation {
  path: string;
  startLine: number;
  endLine: number;
  id: string;
}

/**
 * The contract's order for hits with equal scores (and for a file's chunks): path, then start line,
 * then end line and id so the order is total. Paths compare by UTF-16 code units. Negative when `a`
 * comes first. Drivers that sort in their own engine (SQLite's `ORDER BY`) must agree with it.
 */
export function compareChunkOrder(a: ChunkLocation, b: ChunkLocation): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return (
    a.startLine - b.startLine || a.endLine - b.endLine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}
