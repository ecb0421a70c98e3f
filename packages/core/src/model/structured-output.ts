import { createRequire } from "node:module";
import type { Schema, Validator } from "@cfworker/json-schema";
import type { JsonSchema } from "../agent/tools-definitions.js";
import { ModelError } from "./errors.js";
import type { GenerateRequest, GenerateResult, TokenUsage } from "./language-model.js";

/**
 * `@cfworker/json-schema`'s validator, loaded on the first answer checked: its nine modules cost
 * every process that imports core (~12 ms in a new one), and most never ask a model for JSON (a
 * search, a sync). Loaded through `require` (the package ships CommonJS too) so that checking stays
 * synchronous.
 */
let validatorClass: typeof Validator | undefined;
function loadValidator(): typeof Validator {
  validatorClass ??= (
    createRequire(import.meta.url)("@cfworker/json-schema") as { Validator: typeof Validator }
  ).Validator;
  return validatorClass;
}

/**
 * Validators by schema object: a consolidation pass sends the same schema many times, and
 * compiling it once is what makes checking every answer cheap.
 */
const validators = new WeakMap<object, Validator>();

/**
 * Check that `value` matches `schema` (JSON Schema 2020-12, through `@cfworker/json-schema`: a
 * small validator with no dependencies and no code generation). Providers' structured-output
 * modes are not all strict (OpenAI-compatible servers may ignore `json_schema`, Gemini does not
 * enforce every keyword), so core checks every answer itself.
 *
 * @throws ModelError `bad_response` naming the first mismatches (`/ops/0/text: …`).
 */
export function assertMatchesSchema(
  value: unknown,
  schema: JsonSchema,
  provider: string,
  schemaName = "answer",
): void {
  let validator = validators.get(schema);
  if (!validator) {
    validator = new (loadValidator())(schema as Schema, "2020-12", false);
    validators.set(schema, validator);
  }
  const result = validator.validate(value);
  if (result.valid) return;
  // The validator reports every failing keyword up the tree; the deepest ones say what is wrong.
  const leaves = result.errors.filter(
    (e) =>
      !result.errors.some((o) => o !== e && o.keywordLocation.startsWith(`${e.keywordLocation}/`)),
  );
  const shown = (leaves.length ? leaves : result.errors).slice(0, 3);
  const where = shown.map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${e.error}`);
  throw new ModelError(
    "bad_response",
    provider,
    `the answer does not match the schema "${schemaName}": ${where.join("; ")}${result.errors.length > shown.length ? "; …" : ""}`,
  );
}

/**
 * Parse a model's answer as JSON. Tolerates what models add around JSON when a server ignores the
 * structured-output request: surrounding whitespace and one Markdown code fence (```json … ```).
 *
 * @throws ModelError `bad_response` when the text is not JSON (saying so when the answer was cut
 *   off at the token limit).
 */
export function parseJsonAnswer(
  text: string,
  provider: string,
  options: { finishReason?: string | undefined; usage?: TokenUsage | undefined } = {},
): unknown {
  const trimmed = text.trim();
  const fenced = /^```(?:json|JSON)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const body = fenced?.[1] ?? trimmed;
  try {
    return JSON.parse(body);
  } catch (cause) {
    const cut = options.finishReason === "length";
    const preview = body.length > 120 ? `${body.slice(0, 119)}…` : body;
    throw new ModelError(
      "bad_response",
      provider,
      cut
        ? `the answer was cut off at the token limit before its JSON ended (${JSON.stringify(preview)})`
        : `the answer is not JSON: ${JSON.stringify(preview)}`,
      {
        ...(cut ? { hint: "ask for more tokens (maxTokens) or for a shorter answer" } : {}),
        usage: options.usage,
        cutOff: cut,
        cause,
      },
    );
  }
}

/**
 * A driver's answer as a {@link GenerateResult}: with a schema in the request, the text is parsed
 * ({@link parseJsonAnswer}, which throws `bad_response` carrying the usage) and returned as
 * `value`. Usage left undefined (a server that reported none) is estimated by core's wrapper.
 */
export function generateResult<T>(
  request: GenerateRequest,
  answer: {
    provider: string;
    text: string;
    usage: TokenUsage | undefined;
    finishReason: string;
    model: string;
  },
): GenerateResult<T> {
  const { text, usage, finishReason } = answer;
  const value = request.schema
    ? (parseJsonAnswer(text, answer.provider, { finishReason, usage }) as T)
    : undefined;
  return {
    text,
    ...(request.schema ? { value } : {}),
    usage: usage as TokenUsage,
    finishReason,
    model: answer.model,
  };
}
