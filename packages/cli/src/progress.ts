import { createRequire } from "node:module";
import type { SyncProgress } from "@engram/core";
import type cliProgress from "cli-progress";
import type { Io } from "./output.js";

/**
 * A progress bar on stderr while a sync indexes files — only on a terminal and never with --json,
 * so pipes and scripts get clean output. Returns the progress callback and a `stop` function.
 */
export function syncProgressBar(
  io: Io,
  enabled: boolean,
): {
  onProgress?: (p: SyncProgress) => void;
  stop: () => void;
} {
  if (!enabled || !io.stderr.isTTY) return { stop: () => {} };
  let bar: cliProgress.SingleBar | undefined;
  return {
    onProgress: (p) => {
      if (p.phase !== "index" || p.total < 20) return;
      if (!bar) {
        // Loaded when a bar is first drawn: most commands never draw one.
        const { SingleBar, Presets } = createRequire(import.meta.url)(
          "cli-progress",
        ) as typeof cliProgress;
        bar = new SingleBar(
          {
            stream: io.stderr,
            format: "indexing [{bar}] {value}/{total} files  {path}",
            hideCursor: true,
            clearOnComplete: true,
          },
          Presets.shades_classic,
        );
        bar.start(p.total, 0, { path: "" });
      }
      bar.update(p.done, { path: truncate(p.path ?? "", 40) });
    },
    stop: () => bar?.stop(),
  };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}
