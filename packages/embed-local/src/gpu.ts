import type { LlamaOptions } from "node-llama-cpp";
import type { LocalGpu } from "./settings.js";

const GPUS = ["cuda", "vulkan", "metal"] as const;

/**
 * The `gpu` option of node-llama-cpp's `getLlama` for a {@link LocalGpu} setting. `cpu` → no GPU;
 * `auto` → the best GPU whose prebuilt binary is installed and usable, else the CPU; a named GPU
 * → that GPU if its binary is installed and usable, else the CPU. Always paired with
 * `build: "never"`, so a missing GPU build falls back to the CPU instead of compiling.
 */
export function llamaGpuOption(gpu: LocalGpu): NonNullable<LlamaOptions["gpu"]> {
  if (gpu === "cpu") return false;
  if (gpu === "auto") return "auto";
  return { type: "auto", exclude: GPUS.filter((other) => other !== gpu) };
}
