// Writes engram.config.schema.json, the JSON Schema of engram.config.json, from the valibot
// schema the config is validated with (so the two cannot disagree):
//   pnpm --filter @engram/core run config-schema
// test/config/json-schema.test.ts fails when the committed file is out of date.
import { writeFileSync } from "node:fs";
import { toJsonSchema } from "@valibot/to-json-schema";
import { configSchema } from "../src/config/schema.js";

/** Where the schema is published: in @engram/core's tarball, at this path. */
export const SCHEMA_FILE = new URL("../engram.config.schema.json", import.meta.url);

/** The JSON Schema of `engram.config.json`, as the file's text. */
export function configJsonSchemaText(): string {
  const schema = toJsonSchema(configSchema, { errorMode: "ignore", typeMode: "input" });
  const { $schema, ...rest } = schema;
  return `${JSON.stringify(
    {
      $schema,
      title: "engram.config.json",
      description:
        "Configuration of an engram workspace. Every key is optional; unknown keys are errors. (the README of @engram/cli lists them)",
      ...rest,
    },
    null,
    2,
  )}\n`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() ?? "")) {
  writeFileSync(SCHEMA_FILE, configJsonSchemaText());
}
