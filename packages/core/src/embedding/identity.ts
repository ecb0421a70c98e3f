import type { Embedder } from "./embedder.js";

/**
 * Everything that decides what an index holds. When any part differs from what the store
 * recorded, the index is rebuilt from the files: vectors of different models never meet, and text
 * analysed by another analyzer is never searched with this one.
 */
export interface IndexIdentity {
  /** Core's index format version. */
  format: number;
  /** Analyzer id and version (see `text/analyzer`). */
  analyzer: string;
  chunking: IdentityChunking;
  /** null: a keyword-only index. */
  embedding: EmbeddingIdentity | null;
}

/** Chunk sizes, and the smaller ones of log files (absent in indexes built before they existed). */
export interface IdentityChunking {
  tokens: number;
  overlap: number;
  logs?: { tokens: number; overlap: number };
}

/** Which vectors an embedder makes: vectors are only ever compared with the same identity. */
export interface EmbeddingIdentity {
  provider: string;
  model: string;
  dims: number;
  endpoint: string | null;
}

/** The embedding part of the identity for `embedder`. */
export function embeddingIdentity(embedder: Embedder): EmbeddingIdentity {
  return {
    provider: embedder.id,
    model: embedder.model,
    dims: embedder.dims,
    endpoint: embedder.endpoint ?? null,
  };
}

/** Readable `provider/model/dims[@endpoint]`, or `none`. */
export function describeEmbedding(e: EmbeddingIdentity | null | undefined): string {
  return e ? `${e.provider}/${e.model}/${e.dims}${e.endpoint ? `@${e.endpoint}` : ""}` : "none";
}

/**
 * Bump when chunk records change meaning, so every existing index is rebuilt. 3: chunks carry the
 * scope that may see them in their source (`memory#private`, `memory#redacted`).
 */
export const INDEX_FORMAT = 3;

/** The meta key under which a store records the identity. */
export const IDENTITY_META_KEY = "engram.identity";

/**
 * The identity of an index built with these parts: its vectors are `embedding`'s when given, else
 * `embedder`'s (null: keyword only).
 */
export function indexIdentity(parts: {
  analyzer: string;
  chunking: IdentityChunking;
  embedder?: Embedder | null;
  embedding?: EmbeddingIdentity | null;
}): IndexIdentity {
  return {
    format: INDEX_FORMAT,
    analyzer: parts.analyzer,
    chunking: canonicalChunking(parts.chunking),
    embedding:
      parts.embedding !== undefined
        ? parts.embedding
        : parts.embedder
          ? embeddingIdentity(parts.embedder)
          : null,
  };
}

/**
 * True when two identities differ only in their vectors (provider, model, dims or endpoint): the
 * keyword index can stay while the vectors are switched.
 */
export function onlyVectorsDiffer(stored: IndexIdentity, wanted: IndexIdentity): boolean {
  return (
    stored.format === wanted.format &&
    stored.analyzer === wanted.analyzer &&
    describeChunking(stored.chunking) === describeChunking(wanted.chunking) &&
    describeEmbedding(stored.embedding) !== describeEmbedding(wanted.embedding)
  );
}

/** True when two embedding identities (either may be absent) describe the same vectors. */
export function sameEmbedding(
  a: EmbeddingIdentity | null | undefined,
  b: EmbeddingIdentity | null | undefined,
): boolean {
  return describeEmbedding(a) === describeEmbedding(b);
}

/** Canonical JSON of an identity (stable key order), for storing and comparing. */
export function serializeIdentity(identity: IndexIdentity): string {
  const e = identity.embedding;
  return JSON.stringify({
    format: identity.format,
    analyzer: identity.analyzer,
    chunking: canonicalChunking(identity.chunking),
    embedding: e
      ? { provider: e.provider, model: e.model, dims: e.dims, endpoint: e.endpoint }
      : null,
  });
}

/** The differences between a stored identity and the wanted one, as readable reasons (empty: same). */
export function identityChanges(
  stored: IndexIdentity | undefined,
  wanted: IndexIdentity,
): string[] {
  if (!stored) return ["no index yet"];
  const reasons: string[] = [];
  if (stored.format !== wanted.format)
    reasons.push(`index format ${stored.format} → ${wanted.format}`);
  if (stored.analyzer !== wanted.analyzer)
    reasons.push(`analyzer ${stored.analyzer} → ${wanted.analyzer}`);
  const before = describeChunking(stored.chunking);
  const after = describeChunking(wanted.chunking);
  if (before !== after) reasons.push(`chunking ${before} → ${after}`);
  const was = describeEmbedding(stored.embedding);
  const now = describeEmbedding(wanted.embedding);
  if (was !== now) reasons.push(`embedding ${was} → ${now}`);
  return reasons;
}

function canonicalChunking(c: IdentityChunking): IdentityChunking {
  return {
    tokens: c.tokens,
    overlap: c.overlap,
    ...(c.logs ? { logs: { tokens: c.logs.tokens, overlap: c.logs.overlap } } : {}),
  };
}

/** `400/80`, or `400/80, logs 175/35`. */
function describeChunking(c: Partial<IdentityChunking> | undefined): string {
  const logs = c?.logs ? `, logs ${c.logs.tokens}/${c.logs.overlap}` : "";
  return `${c?.tokens}/${c?.overlap}${logs}`;
}

/** Parse a stored identity; undefined when absent or unreadable (treated as "rebuild"). */
export function parseIdentity(json: string | undefined): IndexIdentity | undefined {
  if (!json) return undefined;
  try {
    const value = JSON.parse(json) as IndexIdentity;
    return typeof value === "object" && value !== null && typeof value.format === "number"
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}
