import * as v from "valibot";
import { EngramError } from "../errors.js";
import { fieldHelp } from "./tool-schema.js";
import type { MemoryToolSpec } from "./tool-spec.js";
import { MEMORY_TOOL_SPECS, type MemoryToolName } from "./tool-specs.js";

/** The spec of the tool named `N`. */
export type MemoryToolSpecOf<N extends MemoryToolName> = Extract<
  (typeof MEMORY_TOOL_SPECS)[number],
  { name: N }
>;

/** The validated arguments of the tool named `N` (defaults filled in). */
export type MemoryToolArgs<N extends MemoryToolName> = v.InferOutput<MemoryToolSpecOf<N>["args"]>;

/** Arguments of `memory_search`, validated. */
export type MemorySearchArgs = MemoryToolArgs<"memory_search">;
/** Arguments of `memory_get`, validated. */
export type MemoryGetArgs = MemoryToolArgs<"memory_get">;
/** Arguments of `memory_write`, validated (`target` defaults to `"daily"`). */
export type MemoryWriteArgs = MemoryToolArgs<"memory_write">;

/**
 * Validates a tool call's arguments against the tool's valibot schema: an object, or its JSON
 * text (the way function-calling APIs hand arguments over). Absent and `null` optional fields
 * (function-calling models often send `null`) are left out and defaults filled in; unknown fields
 * are refused, so a model that asks for something the tool does not do (e.g. `mode: "overwrite"`
 * on `memory_write`) is told so instead of ignored.
 *
 * @throws EngramError `INVALID_ARGUMENT` naming the tool and the field, with an example in the
 * hint; or naming the tool when no tool has that name.
 */
export function parseToolArgs<N extends MemoryToolName>(name: N, args: unknown): MemoryToolArgs<N>;
export function parseToolArgs(name: string, args: unknown): Record<string, unknown>;
export function parseToolArgs(name: string, args: unknown): unknown {
  const spec = MEMORY_TOOL_SPECS.find((s) => s.name === name);
  if (!spec) {
    throw new EngramError("INVALID_ARGUMENT", `unknown tool "${name}"`, {
      hint: `call one of ${MEMORY_TOOL_SPECS.map((s) => s.name).join(", ")}`,
    });
  }
  return parseArgsOf(spec, args);
}

/** {@link parseToolArgs} for a tool given by its spec (tools not in the built-in list too). */
export function parseArgsOf(spec: MemoryToolSpec, args: unknown): Record<string, unknown> {
  const { name } = spec;
  const fields = spec.args.entries;
  const known = Object.keys(fields);
  if (typeof args === "string") args = parseJson(name, args);
  if (args === undefined || args === null) args = {};
  if (typeof args !== "object" || Array.isArray(args)) {
    throw new EngramError("INVALID_ARGUMENT", `${name}: arguments must be a JSON object`, {
      hint: `pass an object with ${known.join(", ")}`,
    });
  }
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args as object)) {
    if (!Object.hasOwn(fields, key)) {
      throw new EngramError("INVALID_ARGUMENT", `${name}: unknown field "${key}"`, {
        hint: `${name} takes only ${known.join(", ")}${spec.fieldsNote ? ` (${spec.fieldsNote})` : ""}`,
      });
    }
    if (value !== null && value !== undefined) given[key] = value;
  }
  const result = v.safeParse(spec.args, given);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const key = String(issue.path?.[0]?.key ?? known[0]);
  const help = fieldHelp(fields[key] as v.GenericSchema);
  if (given[key] === undefined) {
    throw new EngramError("INVALID_ARGUMENT", `${name}: ${key} is required`, {
      hint: `pass ${key}, e.g. ${key}: ${help.example}`,
    });
  }
  throw new EngramError(
    "INVALID_ARGUMENT",
    `${name}: ${v.getDotPath(issue) ?? key} must be ${help.expect}, got ${describe(given[key])}`,
    { hint: `pass ${key} like ${help.example}${help.required ? "" : ", or leave it out"}` },
  );
}

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text.trim() === "" ? "{}" : text);
  } catch {
    throw new EngramError("INVALID_ARGUMENT", `${name}: arguments are not valid JSON`, {
      hint: "pass the arguments as a JSON object",
    });
  }
}

function describe(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}
