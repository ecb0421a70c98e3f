import { relative, sep } from "node:path";
import { toPosix } from "@engram/core/internal";
import type { ResourceNotifier } from "./resources.js";

/** How long file events are gathered before clients are told (one notification per burst). */
const GATHER_MS = 50;

/**
 * Hands the watcher's file events to every connected session: the index path of each changed
 * file, and whether a file appeared or went away (the resource list changed). Events of one burst
 * go out together.
 */
export class ResourceChanges {
  readonly #sessions = new Set<ResourceNotifier>();
  readonly #workspace: string;
  #paths = new Set<string>();
  #listChanged = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(workspace: string) {
    this.#workspace = workspace;
  }

  /** Tell `session` of changes until the returned function is called. */
  add(session: ResourceNotifier): () => void {
    this.#sessions.add(session);
    return () => this.#sessions.delete(session);
  }

  /** A watcher event (`add`, `change`, `unlink`, …) on an absolute path. */
  note(event: string, absPath: string): void {
    if (!absPath.toLowerCase().endsWith(".md")) return;
    const rel = relative(this.#workspace, absPath);
    const inside = rel !== "" && !rel.startsWith(`..${sep}`) && rel !== "..";
    this.#paths.add(toPosix(inside ? rel : absPath));
    if (event === "add" || event === "unlink") this.#listChanged = true;
    this.#timer ??= setTimeout(() => this.flush(), GATHER_MS);
  }

  /** Send what was gathered now. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const paths = [...this.#paths];
    const listChanged = this.#listChanged;
    this.#paths = new Set();
    this.#listChanged = false;
    if (paths.length === 0 && !listChanged) return;
    for (const session of this.#sessions) session.changed(paths, listChanged);
  }

  /** Drop what is pending and stop the timer. */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#sessions.clear();
  }
}
