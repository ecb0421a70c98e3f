import type * as v from "valibot";
import type { Memory } from "../memory.js";
import type { ToolPrivacyHost } from "./tool-privacy.js";
import type { ToolArgsSchema } from "./tool-schema.js";

/**
 * What the tools need of a {@link Memory} (a `Memory` is one). The privacy parts (workspace,
 * config, sealing, layout) are optional: without them the group scope refuses reads it cannot
 * check, and the unlock setting is off. The curation tools (forget, update, consolidate) are
 * offered only when the host has those methods too.
 */
export type MemoryToolsHost = Pick<Memory, "search" | "get" | "appendDaily" | "appendLongTerm"> &
  ToolPrivacyHost &
  Partial<CurationHost>;

/** What the curation tools need of a {@link Memory}. */
export type CurationHost = Pick<Memory, "forget" | "update" | "consolidate">;

/**
 * Hints about what a tool does, in MCP's `ToolAnnotations` shape (clients use them to decide
 * what to confirm with the user). engram's tools touch only the workspace; only
 * `memory_consolidate` may also send memory to the configured language model (`openWorldHint`).
 */
export interface ToolAnnotations {
  /** True when the tool changes nothing. */
  readonly readOnlyHint: boolean;
  /** True when the tool may remove or overwrite what is stored (only meaningful when it writes). */
  readonly destructiveHint: boolean;
  /** True when calling it twice with the same arguments has no further effect. */
  readonly idempotentHint: boolean;
  /** True when the tool may reach beyond the workspace (a configured language model). */
  readonly openWorldHint: boolean;
}

/**
 * One memory tool, defined once: its words, its argument and result schemas (valibot; JSON Schema
 * is derived from them) and what it does. Add a tool by writing one of these in its own
 * `tool-<name>.ts` and listing it in `tool-specs.ts`: `createMemoryTools`, the OpenAI/Anthropic
 * formats, the MCP server and the framework adapters all pick it up.
 */
export interface MemoryToolSpec<
  Name extends string = string,
  Args extends ToolArgsSchema = ToolArgsSchema,
  Result = unknown,
> {
  readonly name: Name;
  /** A short human title (MCP `title`). */
  readonly title: string;
  /** What the tool does and when to call it, written for the model. */
  readonly description: string;
  readonly annotations: ToolAnnotations;
  /**
   * The arguments: a strict object whose fields carry `v.description`, `v.examples` and
   * `expects(...)` (the words of the error message). Optional fields may have a default.
   */
  readonly args: Args;
  /** Said after the list of fields when a call names an unknown one (e.g. "it always appends"). */
  readonly fieldsNote?: string;
  /**
   * True for a tool that curates memory (rewrites or removes what is there): offered only in the
   * main scope of a writable workspace, and only for a host that can curate (a `Memory`).
   */
  readonly curates?: boolean;
  /** The result (an object); its JSON Schema is the tool's `outputSchema`. */
  readonly result: v.GenericSchema<unknown, Result>;
  /** Runs the tool on validated arguments. */
  run(host: MemoryToolsHost, args: v.InferOutput<Args>): Promise<Result>;
}

/** Types a {@link MemoryToolSpec} (an identity function that keeps the literal name and types). */
export function defineMemoryTool<Name extends string, Args extends ToolArgsSchema, Result>(
  spec: MemoryToolSpec<Name, Args, Result>,
): MemoryToolSpec<Name, Args, Result> {
  return spec;
}
