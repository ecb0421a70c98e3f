import type { JsonSchema } from "@engram/core/driver";
import type { GbnfJsonSchema, Llama, LlamaGrammar } from "node-llama-cpp";
import { localModelError } from "./chat-errors.js";
import { messageOf } from "./errors.js";

/** Keywords node-llama-cpp's grammar builder does not take, and what they become. */
const RENAMED: Readonly<Record<string, string>> = { anyOf: "oneOf" };
/** Keywords that only annotate: dropped before the grammar is built. */
const DROPPED = new Set(["$schema", "$id", "title", "examples", "default", "$comment"]);

/**
 * A schema as node-llama-cpp's `createGrammarForJsonSchema` takes it: `anyOf` becomes `oneOf` (the
 * grammar cannot tell them apart anyway) and annotations are dropped. Core still checks every
 * answer against the original schema.
 */
export function grammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(grammarSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    const name = RENAMED[key] ?? key;
    // Property names and enum values are data, not schemas.
    out[name] =
      key === "properties" || key === "$defs"
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, grammarSchema(v)]),
          )
        : key === "enum" || key === "const" || key === "required"
          ? value
          : grammarSchema(value);
  }
  return out;
}

/**
 * Grammars by schema, per llama.cpp runtime: building one compiles GBNF, and a consolidation pass
 * asks with the same schema many times.
 */
export class GrammarCache {
  readonly #grammars = new WeakMap<object, Promise<LlamaGrammar>>();

  /**
   * The grammar that makes the model answer JSON matching `schema`.
   *
   * @throws ModelError `bad_input` when the schema uses what the grammar builder cannot express.
   */
  get(llama: Llama, schema: JsonSchema): Promise<LlamaGrammar> {
    let grammar = this.#grammars.get(schema);
    if (!grammar) {
      // The schema is only known at run time; the builder's generic typing is for literals.
      const build = llama.createGrammarForJsonSchema.bind(llama) as (
        schema: GbnfJsonSchema,
      ) => Promise<LlamaGrammar>;
      grammar = build(grammarSchema(schema) as GbnfJsonSchema).catch((cause: unknown) => {
        this.#grammars.delete(schema);
        throw localModelError(
          "bad_input",
          `cannot build a JSON grammar for the schema: ${messageOf(cause)}`,
          {
            hint: "use the JSON Schema subset structured outputs share (object, array, string, number, boolean, enum, const, oneOf/anyOf)",
            cause,
          },
        );
      });
      this.#grammars.set(schema, grammar);
    }
    return grammar;
  }
}
