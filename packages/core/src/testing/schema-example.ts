/**
 * A deterministic value matching a JSON Schema of the subset structured-output APIs share
 * (objects with their required properties, arrays, strings, numbers, booleans, enums, const,
 * anyOf): what the test servers that stand in for model APIs answer when a test scripts nothing.
 */
export function schemaExample(schema: unknown): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum[0];
  if ("const" in s) return s.const;
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) return schemaExample(union[0]);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const keys = (s.required as string[] | undefined) ?? Object.keys(properties);
      return Object.fromEntries(keys.map((key) => [key, schemaExample(properties[key])]));
    }
    case "array":
      return Array.from({ length: Math.max(1, Number(s.minItems ?? 1)) }, () =>
        schemaExample(s.items),
      );
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return "text";
  }
}
