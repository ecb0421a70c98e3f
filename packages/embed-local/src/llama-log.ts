import type { LlamaLogLevel } from "node-llama-cpp";

const KEPT_LEVELS: ReadonlySet<string> = new Set(["warn", "error", "fatal"]);

/**
 * The last few warnings and errors llama.cpp logged, to quote in error messages instead of
 * printing them. node-llama-cpp's native logger is one per process, so this log is too.
 */
export class RecentLog {
  readonly #lines: string[] = [];
  readonly #size: number;

  constructor(size = 6) {
    this.#size = size;
  }

  /** node-llama-cpp's `logger` callback: keeps warnings and errors, drops the rest. */
  add(level: LlamaLogLevel, message: string): void {
    if (!KEPT_LEVELS.has(level)) return;
    const line = message.trim();
    if (!line) return;
    this.#lines.push(line);
    if (this.#lines.length > this.#size) this.#lines.shift();
  }

  /** Forget what was logged (before an operation whose messages are wanted). */
  clear(): void {
    this.#lines.length = 0;
  }

  /** The kept lines, joined by `; `. */
  text(): string {
    return this.#lines.join("; ");
  }
}

/** The process's llama.cpp log. */
export const llamaLog = new RecentLog();
