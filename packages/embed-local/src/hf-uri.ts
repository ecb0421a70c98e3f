/**
 * True for a Hugging Face model URI (`hf:<user>/<repo>:<quant>` or
 * `hf:<user>/<repo>/<file>.gguf`).
 */
export function isHfUri(modelPath: string): boolean {
  return /^hf:/i.test(modelPath.trim());
}

/**
 * The Hugging Face endpoint node-llama-cpp downloads from: `MODEL_ENDPOINT`, else `HF_ENDPOINT`
 * (e.g. a mirror), else `https://huggingface.co/`.
 */
export function huggingFaceEndpoint(env: Readonly<Record<string, string | undefined>>): URL {
  for (const value of [env.MODEL_ENDPOINT, env.HF_ENDPOINT]) {
    if (!value) continue;
    try {
      return new URL(value);
    } catch {
      // node-llama-cpp ignores values that are not URLs too
    }
  }
  return new URL("https://huggingface.co/");
}
