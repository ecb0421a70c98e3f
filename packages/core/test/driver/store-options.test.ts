import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  batches,
  type OptionsSchema,
  parseStoreOptions,
  withoutDeprecatedOptions,
} from "../../src/driver/index.js";

const schema = v.strictObject(
  {
    url: v.optional(v.pipe(v.string("an http(s) URL"), v.url("an http(s) URL"))),
    batchSize: v.optional(
      v.pipe(
        v.number("a whole number ≥ 1"),
        v.integer("a whole number ≥ 1"),
        v.minValue(1, "a whole number ≥ 1"),
      ),
      256,
    ),
    retry: v.optional(v.strictObject({ retries: v.optional(v.number("a number"), 4) }), {}),
  },
  (issue) => (issue.expected === "never" ? "left out: the store has no such option" : "an object"),
);

describe("parseStoreOptions", () => {
  it("returns the options with the schema's defaults filled in", () => {
    expect(parseStoreOptions("demo", schema, {})).toEqual({
      batchSize: 256,
      retry: { retries: 4 },
    });
    expect(parseStoreOptions("demo", schema, { batchSize: 8, retry: { retries: 0 } })).toEqual({
      batchSize: 8,
      retry: { retries: 0 },
    });
  });

  it("names the option, its value and what it takes, with a hint", () => {
    expect(() => parseStoreOptions("demo", schema, { batchSize: 0 })).toThrow(
      expect.objectContaining({
        code: "CONFIG_INVALID",
        message: "The demo store option batchSize is 0; it must be a whole number ≥ 1.",
        hint: expect.stringContaining("store.options"),
      }),
    );
    expect(() => parseStoreOptions("demo", schema, { retry: { retries: "3" } })).toThrow(
      'The demo store option retry.retries is "3"; it must be a number.',
    );
    expect(() => parseStoreOptions("demo", schema, { url: "记忆" })).toThrow(/url is "记忆"/);
  });

  it("refuses an unknown option (a typo would otherwise be ignored)", () => {
    expect(() => parseStoreOptions("demo", schema, { batchsize: 8 })).toThrow(
      "The demo store option batchsize is 8; it must be left out: the store has no such option.",
    );
  });

  it("takes any Standard Schema, and refuses one that checks asynchronously", () => {
    const positive: OptionsSchema<number> = {
      "~standard": {
        validate: (value) =>
          typeof value === "number" && value > 0
            ? { value }
            : { issues: [{ message: "a positive number" }] },
      },
    };
    expect(parseStoreOptions("demo", positive, 3)).toBe(3);
    expect(() => parseStoreOptions("demo", positive, -1)).toThrow(
      "The demo store option (all) is -1; it must be a positive number.",
    );
    const slow: OptionsSchema<number> = { "~standard": { validate: async () => ({ value: 1 }) } };
    expect(() => parseStoreOptions("demo", slow, 1)).toThrow(/synchronously/);
  });
});

describe("batches", () => {
  it("slices in order, the last slice shorter", () => {
    expect(batches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batches([1, 2], 5)).toEqual([[1, 2]]);
    expect(batches([], 3)).toEqual([]);
  });

  it("splits a 10,000-point write into batchSize requests", () => {
    const sizes = batches(
      Array.from({ length: 10_000 }, (_, i) => i),
      256,
    ).map((b) => b.length);
    expect(sizes).toHaveLength(40);
    expect(sizes.slice(0, 39).every((n) => n === 256)).toBe(true);
    expect(sizes[39]).toBe(10_000 - 39 * 256);
  });
});

describe("withoutDeprecatedOptions", () => {
  it("drops the options a driver no longer takes, with one warning naming them", async () => {
    const warnings: Array<Error & { code?: string }> = [];
    const listen = (warning: Error & { code?: string }) => warnings.push(warning);
    process.on("warning", listen);
    try {
      const options = { url: "http://x", oldA: 1, oldB: false };
      expect(withoutDeprecatedOptions("demo", options, ["oldA", "oldB", "oldC"], "why")).toEqual({
        url: "http://x",
      });
      const untouched = { url: "http://x" };
      expect(withoutDeprecatedOptions("demo", untouched, ["oldA"], "why")).toBe(untouched);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a tick
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.code).toBe("ENGRAM_DEPRECATED_OPTION");
      expect(warnings[0]?.message).toBe(
        'the demo store ignores "oldA", "oldB": why; remove them from store.options',
      );
    } finally {
      process.off("warning", listen);
    }
  });
});
