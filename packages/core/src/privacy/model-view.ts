import path from "node:path";
import type { StoredChunk } from "../store/records.js";
import { isSensitiveFile, redactPrivate } from "../workspace/privacy.js";
import { readUtf8 } from "../workspace/read.js";
import { GROUP_ONLY_SUFFIX, MAIN_ONLY_SUFFIX } from "./scope-sources.js";

/** What a model is shown in place of a chunk it may not read. */
export const WITHHELD_FROM_MODEL = "[withheld: sensitive]";

/**
 * The text of each chunk as a model outside engram (a reranker, a remote API) may read it: private
 * spans replaced by `[private]` and a `sensitive: true` file withheld whole, decided from the file
 * on disk (a chunk inside a long private block holds no marker of its own). Chunks that hold no
 * private text are returned as they are; a file that cannot be read is withheld (failing closed).
 *
 * Private spans and sensitive files never reach a model unless the user opts in; pass
 * `includePrivate: true` only then.
 */
export async function modelView(
  chunks: readonly StoredChunk[],
  parts: { workspace: string; maxBytes: number; includePrivate?: boolean },
): Promise<string[]> {
  if (parts.includePrivate) return chunks.map((c) => c.text);
  const files = new Map<string, Promise<{ sensitive: boolean; lines: string[] } | null>>();
  const publicLines = (file: string) => {
    let view = files.get(file);
    if (!view) {
      const abs = path.isAbsolute(file) ? file : path.join(parts.workspace, ...file.split("/"));
      view = readUtf8(abs, { maxBytes: parts.maxBytes }).then(
        ({ text }) => ({
          sensitive: isSensitiveFile(text),
          lines: redactPrivate(text).split("\n"),
        }),
        () => null,
      );
      files.set(file, view);
    }
    return view;
  };
  return Promise.all(
    chunks.map(async (chunk) => {
      // Chunks any scope may see, and group-only copies (already redacted), go as they are.
      if (!chunk.source.endsWith(MAIN_ONLY_SUFFIX) || chunk.source.endsWith(GROUP_ONLY_SUFFIX)) {
        return chunk.text;
      }
      const view = await publicLines(chunk.path);
      if (!view || view.sensitive) return WITHHELD_FROM_MODEL;
      return view.lines.slice(chunk.startLine - 1, chunk.endLine).join("\n");
    }),
  );
}
