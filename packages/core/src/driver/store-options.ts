import { EngramError } from "../errors.js";

/** One problem a {@link OptionsSchema} found (the Standard Schema issue shape). */
export interface OptionsIssue {
  /** Completes "it must be …": `a whole number ≥ 1`. */
  readonly message: string;
  /** Where: keys from the options object down (`["retry", "retries"]`). */
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a {@link OptionsSchema} answers: the checked options (defaults filled in), or the issues. */
export type OptionsResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<OptionsIssue> };

/**
 * A driver's options, declared once as a schema in the Standard Schema form
 * (https://standardschema.dev: a valibot, zod or arktype schema is one): the schema checks the
 * values, fills in the defaults and gives the driver its option types.
 */
export interface OptionsSchema<Output = unknown> {
  readonly "~standard": {
    validate(value: unknown): OptionsResult<Output> | Promise<OptionsResult<Output>>;
  };
}

/**
 * Check a store driver's `options` with its `schema` and return them with the defaults filled in.
 * Options from `engram.config.json` arrive untyped, so every value is checked. The first problem
 * becomes `CONFIG_INVALID`: `The qdrant store option batchSize is 0; it must be a whole number ≥ 1.`
 * — the schema's message completes the sentence, so word it that way (for an unknown key:
 * `left out: the store has no such option`).
 *
 * @param driver The driver's name as `store.driver` spells it (`qdrant`).
 * @throws EngramError `CONFIG_INVALID` naming the option, its value and what it takes.
 */
export function parseStoreOptions<Output>(
  driver: string,
  schema: OptionsSchema<Output>,
  options: unknown,
): Output {
  const result = schema["~standard"].validate(options);
  if (result instanceof Promise) {
    throw new TypeError(`The ${driver} store's options schema must check synchronously.`);
  }
  const issue = result.issues?.[0];
  if (!issue) return (result as { value: Output }).value;
  const keys = (issue.path ?? []).map((part) => (typeof part === "object" ? part.key : part));
  const name = keys.map(String).join(".") || "(all)";
  let value: unknown = options;
  for (const key of keys) value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
  throw new EngramError(
    "CONFIG_INVALID",
    `The ${driver} store option ${name} is ${JSON.stringify(value) ?? String(value)}; it must be ${issue.message}.`,
    {
      hint: `Fix ${name} in store.options of engram.config.json (or in the options the ${driver} store is created with).`,
    },
  );
}

/**
 * `options` without the `deprecated` ones (options a driver took once and now ignores), with one
 * `ENGRAM_DEPRECATED_OPTION` warning naming those found: a workspace config that still sets one
 * opens rather than fails.
 *
 * @param why Why they mean nothing now, completing "the <driver> store ignores "x": …".
 */
export function withoutDeprecatedOptions<T extends object>(
  driver: string,
  options: T,
  deprecated: readonly string[],
  why: string,
): T {
  const found = deprecated.filter((name) => name in options);
  if (!found.length) return options;
  const names = found.map((name) => `"${name}"`).join(", ");
  process.emitWarning(
    `the ${driver} store ignores ${names}: ${why}; remove ${found.length > 1 ? "them" : "it"} from store.options`,
    { code: "ENGRAM_DEPRECATED_OPTION" },
  );
  return Object.fromEntries(Object.entries(options).filter(([name]) => !found.includes(name))) as T;
}
