import * as v from "valibot";
import { EngramError } from "../errors.js";
import { TIERS, type Tier } from "../tier.js";
import { MAX_WRITE_CHARS, type MemoryToolName } from "./tools-definitions.js";

/** Arguments of `memory_search`, validated. */
export interface MemorySearchArgs {
  query: string;
  maxResults?: number;
  minScore?: number;
  tiers?: Tier[];
  sources?: string[];
}

/** Arguments of `memory_get`, validated. */
export interface MemoryGetArgs {
  path: string;
  from?: number;
  lines?: number;
}

/** Arguments of `memory_write`, validated (`target` defaults to `"daily"`). */
export interface MemoryWriteArgs {
  text: string;
  target: string;
}

/** How one argument is checked, and how to tell the caller what was expected. */
interface Field {
  schema: v.GenericSchema;
  /** Completes "<field> must be …". */
  expect: string;
  /** An example value for the hint. */
  example: string;
  required?: boolean;
}

const text = (max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.string(),
    v.check((s) => s.trim() !== ""),
    v.maxLength(max),
  );
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));

const FIELDS: Record<MemoryToolName, Record<string, Field>> = {
  memory_search: {
    query: { schema: text(), expect: "non-empty text", example: '"deploy plan"', required: true },
    maxResults: { schema: int(1, 100), expect: "a whole number from 1 to 100", example: "6" },
    minScore: {
      schema: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
      expect: "a number from 0 to 1",
      example: "0.35",
    },
    tiers: {
      schema: v.array(v.picklist(TIERS)),
      expect: `a list of tiers (${TIERS.join(", ")})`,
      example: '["long", "mid"]',
    },
    sources: {
      schema: v.array(text()),
      expect: "a list of source names",
      example: '["memory"]',
    },
  },
  memory_get: {
    path: {
      schema: text(),
      expect: "a workspace-relative memory file path",
      example: '"MEMORY.md"',
      required: true,
    },
    from: { schema: int(1), expect: "a whole number of at least 1", example: "1" },
    lines: { schema: int(1), expect: "a whole number of at least 1", example: "40" },
  },
  memory_forget: {
    target: { schema: text(), expect: "lines as path:start-end", example: '"MEMORY.md:12-14"' },
    query: { schema: text(), expect: "non-empty text", example: '"hunter2"' },
    reason: { schema: text(), expect: "non-empty text", example: '"no longer true"' },
    fromLog: { schema: v.boolean(), expect: "true or false", example: "false" },
  },
  memory_update: {
    target: {
      schema: text(),
      expect: "path:start-end or path#Heading",
      example: '"MEMORY.md:12-14"',
      required: true,
    },
    text: {
      schema: text(MAX_WRITE_CHARS),
      expect: `non-empty text of at most ${MAX_WRITE_CHARS} characters`,
      example: '"- Lin prefers tea"',
      required: true,
    },
    reason: { schema: text(), expect: "non-empty text", example: '"corrected"' },
  },
  memory_consolidate: {
    mode: { schema: v.picklist(["plan", "apply"]), expect: '"plan" or "apply"', example: '"plan"' },
    maxTokens: { schema: int(1), expect: "a whole number of at least 1", example: "20000" },
  },
  memory_write: {
    text: {
      schema: text(MAX_WRITE_CHARS),
      expect: `non-empty text of at most ${MAX_WRITE_CHARS} characters`,
      example: '"Decided to ship on Friday"',
      required: true,
    },
    target: {
      schema: text(),
      expect: '"daily", "long-term" or a memory file path',
      example: '"daily"',
    },
  },
};

/**
 * Validates a tool call's arguments: an object, or its JSON text (the way function-calling APIs
 * hand arguments over). Absent and `null` optional fields (function-calling models
 * often send `null`) are left out; unknown fields are refused, so a model that asks for something
 * the tool does not do (e.g. `mode: "overwrite"` on `memory_write`) is told so instead of ignored.
 *
 * @throws EngramError `INVALID_ARGUMENT` naming the tool and the field, with an example in the hint.
 */
export function parseToolArgs(name: "memory_search", args: unknown): MemorySearchArgs;
export function parseToolArgs(name: "memory_get", args: unknown): MemoryGetArgs;
export function parseToolArgs(name: "memory_write", args: unknown): MemoryWriteArgs;
export function parseToolArgs(name: MemoryToolName, args: unknown): Record<string, unknown>;
export function parseToolArgs(name: MemoryToolName, args: unknown): unknown {
  const fields = FIELDS[name];
  const known = Object.keys(fields);
  if (typeof args === "string") args = parseJson(name, args);
  if (args === undefined || args === null) args = {};
  if (typeof args !== "object" || Array.isArray(args)) {
    throw new EngramError("INVALID_ARGUMENT", `${name}: arguments must be a JSON object`, {
      hint: `pass an object with ${known.join(", ")}`,
    });
  }
  const given = args as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(fields, key)) {
      throw new EngramError("INVALID_ARGUMENT", `${name}: unknown field "${key}"`, {
        hint: `${name} takes only ${known.join(", ")}${name === "memory_write" ? " (it always appends)" : ""}`,
      });
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    const value = given[key];
    if (value === undefined || value === null) {
      if (field.required) {
        throw new EngramError("INVALID_ARGUMENT", `${name}: ${key} is required`, {
          hint: `pass ${key}, e.g. ${key}: ${field.example}`,
        });
      }
      continue;
    }
    const result = v.safeParse(field.schema, value);
    if (!result.success) {
      const at = result.issues[0] ? v.getDotPath(result.issues[0]) : null;
      const where = at ? `${key}.${at}` : key;
      throw new EngramError(
        "INVALID_ARGUMENT",
        `${name}: ${where} must be ${field.expect}, got ${describe(value)}`,
        { hint: `pass ${key} like ${field.example}${field.required ? "" : ", or leave it out"}` },
      );
    }
    out[key] = result.output;
  }
  if (name === "memory_write" && out.target === undefined) out.target = "daily";
  return out;
}

function parseJson(name: MemoryToolName, text: string): unknown {
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
