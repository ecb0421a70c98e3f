import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Embedder, type EmbeddingProvider, EngramError } from "@engram/core";
import { resolveProviderSettings } from "@engram/core/internal";

/** Embedding modules that come with the bench (their models are the bench's dev dependencies). */
export const BUNDLED_EMBEDDERS = {
  "use-lite": "./embedders/use-lite.js",
  "wink-average": "./embedders/wink-average.js",
} as const;

/**
 * Load `--embedder <module>`: a bundled name (`use-lite`, `wink-average`) or the path of an ES
 * module whose default export, `provider` or `embedder` export is an engram
 * {@link EmbeddingProvider} (created with its settings from `ENGRAM_<ID>_<SETTING>` and `settings`)
 * or an {@link Embedder}.
 *
 * @throws EngramError `INVALID_ARGUMENT` when the module cannot be loaded or exports neither.
 */
export async function loadEmbedderModule(
  spec: string,
  settings: Readonly<Record<string, unknown>> = {},
): Promise<Embedder> {
  const bundled = BUNDLED_EMBEDDERS[spec as keyof typeof BUNDLED_EMBEDDERS];
  const url = bundled
    ? new URL(bundled, import.meta.url).href
    : pathToFileURL(isAbsolute(spec) ? spec : resolve(spec)).href;
  const hint = `pass ${Object.keys(BUNDLED_EMBEDDERS).join(" or ")}, or a module exporting an engram EmbeddingProvider or Embedder (default export, "provider" or "embedder")`;
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `--embedder ${spec} cannot be loaded: ${(error as Error).message}`,
      { hint },
    );
  }
  const value = loaded.default ?? loaded.provider ?? loaded.embedder;
  if (isProvider(value)) {
    const resolved = resolveProviderSettings(value, settings);
    const check = await value.check(resolved);
    if (!check.ok) {
      throw new EngramError("INVALID_ARGUMENT", `--embedder ${spec}: ${check.reason}`, { hint });
    }
    return value.create(resolved);
  }
  if (isEmbedder(value)) return value;
  throw new EngramError(
    "INVALID_ARGUMENT",
    `--embedder ${spec} exports no embedding provider or embedder`,
    { hint },
  );
}

function isProvider(value: unknown): value is EmbeddingProvider {
  const v = value as Partial<EmbeddingProvider> | undefined;
  return typeof v?.create === "function" && typeof v.check === "function";
}

function isEmbedder(value: unknown): value is Embedder {
  const v = value as Partial<Embedder> | undefined;
  return typeof v?.embedBatch === "function" && typeof v.embedQuery === "function";
}
