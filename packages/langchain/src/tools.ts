import {
  createMemoryTools,
  type MemoryTools,
  type MemoryToolsHost,
  type MemoryToolsOptions,
  toolErrorText,
} from "@engram/core";
import { type DynamicStructuredTool, tool } from "@langchain/core/tools";

/** A workspace's memory (a `Memory`), or tools already made with `createMemoryTools`. */
export type MemoryToolsSource = MemoryToolsHost | MemoryTools;

/** The JSON Schema shape `tool()` takes for its `schema`. */
type ToolSchema = Parameters<typeof tool>[1]["schema"];

function isTools(source: MemoryToolsSource): source is MemoryTools {
  return "definitions" in source && "call" in source;
}

/**
 * Every memory tool core defines (`memory_search`, `memory_get`, `memory_write`, …) as LangChain
 * structured tools (`tool()` with core's JSON Schema), for `createAgent`, `bindTools` or LangGraph's
 * `ToolNode`. Each returns the result as JSON text for the model and the result object as the
 * message's `artifact` (`responseFormat: "content_and_artifact"`). Core validates the arguments;
 * a failed call throws an `Error` whose message is `CODE: message (hint)` (the `EngramError` is its
 * `cause`), which agents hand back to the model as the tool's error.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model: "openai:gpt-4.1-mini", tools: memoryTools(memory) });
 * await agent.invoke({ messages: [{ role: "user", content: "What did we decide about X?" }] });
 * ```
 */
export function memoryTools(
  source: MemoryToolsSource,
  options: MemoryToolsOptions = {},
): DynamicStructuredTool[] {
  const tools = isTools(source) ? source : createMemoryTools(source, options);
  return tools.definitions.map(
    (def) =>
      tool(
        async (args: unknown) => {
          try {
            const result = await tools.call(def.name, args);
            return [JSON.stringify(result), result];
          } catch (error) {
            throw new Error(toolErrorText(error), { cause: error });
          }
        },
        {
          name: def.name,
          description: def.description,
          schema: def.parameters as unknown as ToolSchema,
          responseFormat: "content_and_artifact",
        },
      ) as unknown as DynamicStructuredTool,
  );
}
