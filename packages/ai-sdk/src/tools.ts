import {
  createMemoryTools,
  type MemoryTools,
  type MemoryToolsHost,
  type MemoryToolsOptions,
  parseToolArgs,
  toolErrorText,
} from "@engram/core";
import { type JSONSchema7, jsonSchema, type Tool, tool } from "ai";

/** A workspace's memory (a `Memory`), or tools already made with `createMemoryTools`. */
export type MemoryToolsSource = MemoryToolsHost | MemoryTools;

/** The tools by name, as `generateText({ tools })` and agents take them. */
export type EngramToolSet = Record<string, Tool<Record<string, unknown>, unknown>>;

function isTools(source: MemoryToolsSource): source is MemoryTools {
  return "definitions" in source && "call" in source;
}

/**
 * Every memory tool core defines (`memory_search`, `memory_get`, `memory_write`, …) as AI SDK
 * `tool()`s: the description and JSON Schema are core's (`jsonSchema()`), arguments are validated
 * by core's own parser (so the model is told which field is wrong and what to pass), and
 * `execute` runs the tool. Results are plain objects matching each tool's `outputSchema`. A failed
 * call throws an `Error` whose message is `CODE: message (hint)` (the `EngramError` is its
 * `cause`): the AI SDK hands it to the model as a tool error and the loop goes on.
 *
 * @example
 * ```ts
 * const { text } = await generateText({
 *   model,
 *   tools: memoryTools(memory),
 *   stopWhen: stepCountIs(5),
 *   prompt: "What did we decide about the rollback plan?",
 * });
 * ```
 */
export function memoryTools(
  source: MemoryToolsSource,
  options: MemoryToolsOptions = {},
): EngramToolSet {
  const tools = isTools(source) ? source : createMemoryTools(source, options);
  const set: EngramToolSet = {};
  for (const def of tools.definitions) {
    set[def.name] = tool<Record<string, unknown>, unknown>({
      title: def.title,
      description: def.description,
      inputSchema: jsonSchema<Record<string, unknown>>(def.parameters as unknown as JSONSchema7, {
        validate: (value) => {
          try {
            return { success: true, value: parseToolArgs(def.name, value) };
          } catch (error) {
            return { success: false, error: new Error(toolErrorText(error), { cause: error }) };
          }
        },
      }),
      outputSchema: jsonSchema(def.outputSchema as JSONSchema7),
      execute: async (args) => {
        try {
          return await tools.call(def.name, args);
        } catch (error) {
          throw new Error(toolErrorText(error), { cause: error });
        }
      },
    });
  }
  return set;
}
