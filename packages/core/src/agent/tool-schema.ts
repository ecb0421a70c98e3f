import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";

/** A JSON Schema (draft-07 / 2020-12 compatible) fragment, as plain JSON. */
export type JsonSchema = { readonly [key: string]: unknown };

/**
 * Words completing "<field> must be …" in an argument error; kept as valibot metadata on the
 * field's pipe (left out of the JSON Schema).
 */
export function expects<T>(words: string): v.MetadataAction<T, { readonly expect: string }> {
  return v.metadata<T, { readonly expect: string }>({ expect: words });
}

/** Text with at least one non-space character, optionally at most `max` characters long. */
export const nonEmptyText = (max?: number) =>
  max === undefined
    ? v.pipe(v.string(), v.regex(/\S/))
    : v.pipe(v.string(), v.regex(/\S/), v.maxLength(max));

/** A whole number from `min` (to `max`). */
export const wholeNumber = (min: number, max?: number) =>
  max === undefined
    ? v.pipe(v.number(), v.integer(), v.minValue(min))
    : v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

/** The arguments of a tool: a strict object (unknown fields are refused) of named fields. */
export type ToolArgsSchema = v.StrictObjectSchema<v.ObjectEntries, undefined>;

/**
 * The JSON Schema of a valibot schema (`@valibot/to-json-schema`), without the `$schema` key so it
 * drops into OpenAI, Anthropic and MCP tool definitions as it is. Only keywords draft-07 and
 * 2020-12 share are produced (`type`, `properties`, `required`, `additionalProperties`, `pattern`,
 * `minimum`, `enum`, `items`, `default`, `description`, `examples`). A schema that JSON Schema
 * cannot express throws, so a tool definition can never advertise less than it checks.
 */
export function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  const { $schema: _, ...rest } = toJsonSchema(schema, {
    errorMode: "throw",
    ignoreActions: ["metadata"],
  });
  return rest;
}

/** What the argument errors say about one field: its wording, an example, whether it is required. */
export interface FieldHelp {
  required: boolean;
  /** Completes "<field> must be …". */
  expect: string;
  /** An example value, as JSON. */
  example: string;
}

/** {@link FieldHelp} of a field of a tool's argument schema. */
export function fieldHelp(field: v.GenericSchema): FieldHelp {
  const required = field.type !== "optional";
  const inner = required ? field : (field as v.OptionalSchema<v.GenericSchema, unknown>).wrapped;
  const meta = v.getMetadata(inner as Parameters<typeof v.getMetadata>[0]) as { expect?: string };
  const [example] = v.getExamples(inner as Parameters<typeof v.getExamples>[0]) as unknown[];
  return {
    required,
    expect: meta.expect ?? inner.expects,
    example: example === undefined ? "…" : JSON.stringify(example),
  };
}
