import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { configJsonSchemaText, SCHEMA_FILE } from "../../scripts/config-json-schema.js";
import { resolveConfig } from "../../src/config/index.js";

describe("engram.config.schema.json", () => {
  it("is what the config's valibot schema gives (run: pnpm --filter @engram/core run config-schema)", () => {
    const committed = JSON.parse(readFileSync(SCHEMA_FILE, "utf8"));
    expect(committed).toEqual(JSON.parse(configJsonSchemaText()));
  });

  // What an editor does with it: accept what engram accepts, flag what engram refuses.
  const validate = new Ajv({ strict: false }).compile(
    JSON.parse(readFileSync(SCHEMA_FILE, "utf8")),
  );
  it("accepts a config engram accepts", () => {
    const config = {
      $schema: "https://example.invalid/engram.config.schema.json",
      layout: "three-tier",
      extraPaths: ["../团队笔记"],
      search: { maxResults: 6, fusion: "rrf", tierWeights: { long: 1, archive: 0.9 } },
      store: { driver: "sqlite", options: { busyTimeoutMs: 2000 } },
      embedding: { provider: "openai", providers: { openai: { model: "text-embedding-3-small" } } },
    };
    expect(() => resolveConfig(config as never)).not.toThrow();
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
  });

  it("flags what engram refuses: unknown keys, wrong types, values out of range", () => {
    for (const bad of [
      { serach: { maxResults: 6 } },
      { search: { maxResults: "six" } },
      { search: { maxResults: 1000 } },
      { layout: "four-tier" },
    ]) {
      expect(() => resolveConfig(bad as never)).toThrow();
      expect(validate(bad)).toBe(false);
    }
  });
});
