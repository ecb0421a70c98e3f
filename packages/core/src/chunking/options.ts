import { EngramError } from "../errors.js";

/** How big chunks are. Part of the index identity: changing it rebuilds the index. */
export interface ChunkingOptions {
  /** Largest chunk, in estimated tokens (see `estimateTokens`). */
  tokens: number;
  /** Tokens of trailing lines a chunk repeats from the chunk before it; 0 for none. */
  overlap: number;
}

/** 400 tokens per chunk, 80 tokens of overlap. */
export const DEFAULT_CHUNKING: Readonly<ChunkingOptions> = Object.freeze({
  tokens: 400,
  overlap: 80,
});

/**
 * Fills in defaults and checks the values.
 *
 * @throws EngramError `INVALID_ARGUMENT` unless `tokens` is a positive integer and `overlap` an
 *   integer with `0 <= overlap < tokens`.
 */
export function resolveChunkingOptions(options: Partial<ChunkingOptions> = {}): ChunkingOptions {
  const tokens = options.tokens ?? DEFAULT_CHUNKING.tokens;
  const overlap = options.overlap ?? DEFAULT_CHUNKING.overlap;
  if (!Number.isInteger(tokens) || tokens < 1) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `Chunk size must be a positive integer, got ${tokens}.`,
      {
        hint: `Set chunking.tokens to a whole number of tokens such as ${DEFAULT_CHUNKING.tokens}.`,
      },
    );
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= tokens) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `Chunk overlap must be a whole number from 0 to below the chunk size (${tokens}), got ${overlap}.`,
      { hint: "Set chunking.overlap below chunking.tokens, or to 0 for no overlap." },
    );
  }
  return { tokens, overlap };
}
