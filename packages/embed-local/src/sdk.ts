import { localError } from "./errors.js";

/** The node-llama-cpp module (a peer dependency), loaded on first use. */
export type NodeLlamaCpp = typeof import("node-llama-cpp");

let sdk: Promise<NodeLlamaCpp> | undefined;

/**
 * Import node-llama-cpp lazily (it takes about a second), once per process, so importing this
 * package's provider descriptor stays cheap.
 *
 * @throws EmbeddingError `bad_input` when node-llama-cpp is not installed.
 */
export function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  sdk ??= import("node-llama-cpp").catch((cause: unknown) => {
    sdk = undefined;
    throw localError("bad_input", `node-llama-cpp could not be loaded: ${String(cause)}`, {
      hint: "install it next to @engram/embed-local: npm install node-llama-cpp",
      cause,
    });
  });
  return sdk;
}
