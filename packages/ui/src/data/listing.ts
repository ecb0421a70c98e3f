import { type ScannedFile, scanWorkspace } from "@engram/core/internal";

/** How long a listing is reused when no watcher event said the workspace changed. */
const MAX_AGE_MS = 5_000;

/**
 * The workspace's memory files as core's scan lists them (the files the index covers), kept
 * between requests and dropped when the watcher sees a change, so a page of a 10,000-file
 * workspace does not walk the tree each time.
 */
export class WorkspaceListing {
  readonly #workspace: string;
  readonly #extraPaths: readonly string[];
  #current: { at: number; files: Promise<ScannedFile[]> } | undefined;

  constructor(workspace: string, extraPaths: readonly string[]) {
    this.#workspace = workspace;
    this.#extraPaths = extraPaths;
  }

  /** Every memory file, sorted by path. */
  files(): Promise<ScannedFile[]> {
    const now = Date.now();
    if (!this.#current || now - this.#current.at > MAX_AGE_MS) {
      const files = scanWorkspace({
        workspace: this.#workspace,
        extraPaths: this.#extraPaths,
      }).then((r) => r.files);
      // A failed scan is not kept: the next request tries again.
      files.catch(() => {
        if (this.#current?.files === files) this.#current = undefined;
      });
      this.#current = { at: now, files };
    }
    return this.#current.files;
  }

  /** Forget the listing (a file changed). */
  invalidate(): void {
    this.#current = undefined;
  }
}
