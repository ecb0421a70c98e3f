import { platform } from "node:os";
import type { Llama } from "node-llama-cpp";
import { localError, messageOf } from "./errors.js";
import { llamaGpuOption } from "./gpu.js";
import { llamaLog } from "./llama-log.js";
import { importNodeLlamaCpp } from "./sdk.js";
import type { LocalGpu } from "./settings.js";

const runtimes = new Map<string, Promise<Llama>>();

/**
 * The llama.cpp backend for a GPU choice, created once per process and shared by every embedder
 * (each context sets its own thread count, so the backend has no thread limit). One instance, not
 * one per embedder: node-llama-cpp's native logger is process-wide and a second `Llama` breaks it
 * (llama.cpp's messages then escape to stderr instead of into error messages). It is never
 * disposed here either: `Llama.dispose()` frees the native backend for the rest of the process,
 * and the backend holds no model memory — embedders dispose their own model and context.
 * node-llama-cpp frees it when the process exits.
 *
 * Made with `build: "never"` and `skipDownload: true`: a missing binary is an error, never a
 * download or a compile. A failed creation is forgotten, so a later call tries again.
 *
 * @throws EmbeddingError `bad_input` when node-llama-cpp has no usable binary for this platform.
 */
export function sharedLlama(gpu: LocalGpu): Promise<Llama> {
  const key = gpu;
  let runtime = runtimes.get(key);
  if (!runtime) {
    const created = createLlama(gpu);
    created.catch(() => {
      if (runtimes.get(key) === created) runtimes.delete(key);
    });
    runtimes.set(key, created);
    runtime = created;
  }
  return runtime;
}

async function createLlama(gpu: LocalGpu): Promise<Llama> {
  const sdk = await importNodeLlamaCpp();
  try {
    return await sdk.getLlama({
      gpu: llamaGpuOption(gpu),
      build: "never",
      skipDownload: true,
      usePrebuiltBinaries: true,
      progressLogs: false,
      logLevel: sdk.LlamaLogLevel.warn,
      logger: (level, message) => llamaLog.add(level, message),
      // No backend-wide cap: a context without `threads` uses the machine's math cores.
      maxThreads: 0,
    });
  } catch (cause) {
    throw localError(
      "bad_input",
      `node-llama-cpp has no usable prebuilt llama.cpp binary for ${platform()}-${process.arch}: ${messageOf(cause)}`,
      {
        hint: "reinstall node-llama-cpp so its @node-llama-cpp/<platform> package is present (engram never compiles llama.cpp at run time)",
        cause,
      },
    );
  }
}
