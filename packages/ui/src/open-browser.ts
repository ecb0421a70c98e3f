import { stat } from "node:fs/promises";
import path from "node:path";

/** Open `url` in the user's browser (the `open` package; loaded only when asked for). */
export async function openBrowser(url: string): Promise<void> {
  const { default: open } = await import("open");
  const child = await open(url);
  child.on("error", () => {
    // no browser here: the URL is printed anyway
  });
  child.unref();
}

/** `<dir>/bench/results` when it exists (an engram checkout), else undefined. */
export async function defaultBenchDir(dir: string): Promise<string | undefined> {
  const candidate = path.join(dir, "bench", "results");
  const info = await stat(candidate).catch(() => null);
  return info?.isDirectory() ? candidate : undefined;
}
