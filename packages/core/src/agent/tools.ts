import { EngramError } from "../errors.js";
import { canCurate } from "./tool-curation.js";
import { guardedToolsHost, ToolPrivacy, type ToolPrivacyOptions } from "./tool-privacy.js";
import type { MemoryToolSpec, MemoryToolsHost } from "./tool-spec.js";
import { MEMORY_TOOL_SPECS, type MemoryToolName } from "./tool-specs.js";
import { parseArgsOf } from "./tools-args.js";
import { MEMORY_TOOL_DEFINITIONS, type ToolDefinition } from "./tools-definitions.js";

/** Result type of each tool. */
export type MemoryToolResults = {
  [N in MemoryToolName]: Extract<
    (typeof MEMORY_TOOL_SPECS)[number],
    { name: N }
  > extends MemoryToolSpec<N, infer _A, infer R>
    ? R
    : never;
};

/** Options of {@link createMemoryTools} (scope and unlock: see {@link ToolPrivacyOptions}). */
export interface MemoryToolsOptions extends ToolPrivacyOptions {
  /**
   * Offer only the tools that change nothing (`annotations.readOnlyHint`): a read-only agent or
   * server. Default false.
   */
  readOnly?: boolean;
}

/** The memory tools of one workspace: definitions to hand to a model, and their handler. */
export interface MemoryTools {
  /**
   * The tools offered, as plain JSON: `{ name, title, description, parameters, outputSchema,
   * annotations }` (see `openAiTools` / `anthropicTools` for the providers' shapes).
   */
  readonly definitions: readonly ToolDefinition[];
  /**
   * Runs a tool call. `args` is the model's arguments object, or its JSON text. The result is a
   * plain JSON-serialisable object matching the tool's `outputSchema` (MCP's `structuredContent`).
   *
   * @throws EngramError `INVALID_ARGUMENT` for an unknown tool or a bad argument (naming the
   * field); any error of the memory operation (e.g. `FILE_NOT_FOUND`, `PATH_NOT_ALLOWED`). Use
   * `toolErrorResult` to hand the failure back to the model.
   */
  call<N extends MemoryToolName>(name: N, args: unknown): Promise<MemoryToolResults[N]>;
  call(name: string, args: unknown): Promise<MemoryToolResults[MemoryToolName]>;
}

/**
 * Every memory tool (`memory_search`, `memory_get`, `memory_write`, …) over a workspace's memory,
 * ready for OpenAI-style function calling (see `openAiTools`), Anthropic (`anthropicTools`), MCP
 * (`engram mcp`) and the framework adapters (`@engram/ai-sdk`, `@engram/langchain`).
 * `memory_write` only ever appends, through the same locked append as `Memory.appendDaily` /
 * `appendLongTerm`: no call can overwrite or truncate a file.
 *
 * @example
 * ```ts
 * const tools = createMemoryTools(memory);
 * const found = await tools.call("memory_search", { query: "rollback plan" });
 * await tools.call("memory_write", { text: "Rolled back v2.1", target: "daily" });
 * ```
 */
export function createMemoryTools(
  memory: MemoryToolsHost,
  options: MemoryToolsOptions = {},
): MemoryTools {
  const group = options.scope === "group";
  const specs: readonly MemoryToolSpec[] = (MEMORY_TOOL_SPECS as readonly MemoryToolSpec[]).filter(
    (s) =>
      (!options.readOnly || s.annotations.readOnlyHint) &&
      (!s.curates || (!group && canCurate(memory))),
  );
  const byName = new Map(specs.map((s) => [s.name, s]));
  // The session's scope and unlock state guard every read the tools make.
  const privacy = new ToolPrivacy(memory, options);
  // Curation runs only in the main scope (group leaves it out), on the memory itself.
  const host: MemoryToolsHost = {
    ...guardedToolsHost(memory, privacy),
    ...(canCurate(memory)
      ? {
          forget: memory.forget?.bind(memory),
          update: memory.update?.bind(memory),
          consolidate: memory.consolidate?.bind(memory),
        }
      : {}),
  } as MemoryToolsHost;
  return {
    definitions: MEMORY_TOOL_DEFINITIONS.filter((d) => byName.has(d.name)),
    call: async (name: string, args: unknown) => {
      const spec = byName.get(name);
      const curating = (MEMORY_TOOL_SPECS as readonly MemoryToolSpec[]).find(
        (s) => s.name === name && s.curates,
      );
      if (!spec && curating && (options.readOnly || group)) {
        throw new EngramError(
          "INVALID_ARGUMENT",
          `${name} is not available ${options.readOnly ? "to a read-only agent" : "in group scope"}`,
          {
            hint: "curating memory (forget, update, consolidate) is for the main session of a writable workspace",
          },
        );
      }
      if (!spec) {
        throw new EngramError("INVALID_ARGUMENT", `unknown tool "${name}"`, {
          hint: `call one of ${[...byName.keys()].join(", ")}`,
        });
      }
      const { unlock, ...parsed } = parseArgsOf(spec, args);
      if (unlock === true) {
        await privacy.requestUnlock(
          name,
          typeof parsed.path === "string" ? parsed.path : undefined,
        );
      }
      return spec.run(host, parsed);
    },
  } as MemoryTools;
}
