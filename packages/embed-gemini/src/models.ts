/** What engram knows about a Gemini embedding model. */
export interface KnownGeminiModel {
  /** Vector size when `outputDimensionality` is not set. */
  readonly dims: number;
  /** Smallest `outputDimensionality` the model accepts. */
  readonly minDims: number;
  /** Largest `outputDimensionality` the model accepts. */
  readonly maxDims: number;
}

/**
 * Gemini embedding models whose vector size engram knows. Other models work too, given `dims`.
 * gemini-embedding-001 is Matryoshka-trained: any size from 128 to 3072 (768, 1536 and 3072 are
 * recommended); text-embedding-004 answers 768 values.
 */
export const KNOWN_GEMINI_MODELS: Readonly<Record<string, KnownGeminiModel>> = {
  "gemini-embedding-001": { dims: 3072, minDims: 128, maxDims: 3072 },
  "text-embedding-004": { dims: 768, minDims: 1, maxDims: 768 },
};

/** `models/gemini-embedding-001` → `gemini-embedding-001` (the SDK accepts both). */
export function bareModelName(model: string): string {
  return model.startsWith("models/") ? model.slice("models/".length) : model;
}

/** The known facts about `model` (with or without the `models/` prefix), if any. */
export function knownGeminiModel(model: string): KnownGeminiModel | undefined {
  const name = bareModelName(model);
  return Object.hasOwn(KNOWN_GEMINI_MODELS, name) ? KNOWN_GEMINI_MODELS[name] : undefined;
}
