import { EngramError } from "../errors.js";
import type { CurationHost, MemoryToolsHost } from "./tool-spec.js";

/** The host's curation methods, or a clear refusal when it has none (not a `Memory`). */
export function curationHost(host: MemoryToolsHost): CurationHost {
  if (
    typeof host.forget !== "function" ||
    typeof host.update !== "function" ||
    typeof host.consolidate !== "function"
  ) {
    throw new EngramError("INVALID_ARGUMENT", "this memory cannot curate", {
      hint: "pass a Memory (createMemory) to createMemoryTools",
    });
  }
  return host as CurationHost;
}

/** True when the host has the curation methods. */
export function canCurate(host: MemoryToolsHost): boolean {
  return (
    typeof host.forget === "function" &&
    typeof host.update === "function" &&
    typeof host.consolidate === "function"
  );
}
