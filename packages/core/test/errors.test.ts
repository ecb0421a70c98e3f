import { describe, expect, it } from "vitest";
import { EngramError, isEngramError } from "../src/errors.js";

describe("isEngramError", () => {
  it("recognises an EngramError of another installed copy of core by its shape, and its code", () => {
    /** What a driver's own copy of `@engram/core` throws: same shape, another class. */
    class OtherCopyEngramError extends Error {
      override readonly name = "EngramError";
      constructor(
        readonly code: string,
        message: string,
        readonly hint?: string,
      ) {
        super(message);
      }
      describe(): string {
        return this.message;
      }
    }
    const foreign = new OtherCopyEngramError("EMBEDDING_UNAVAILABLE", "openai: down");
    expect(foreign instanceof EngramError).toBe(false);
    expect(isEngramError(foreign)).toBe(true);
    expect(isEngramError(foreign, "EMBEDDING_UNAVAILABLE")).toBe(true);
    expect(isEngramError(foreign, "STORE_FAILED")).toBe(false);
    expect(isEngramError(new EngramError("CLOSED", "closed"), "CLOSED")).toBe(true);
  });

  it("does not take a Node system error (a string code, no describe()) for one", () => {
    const system = Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" });
    expect(isEngramError(system)).toBe(false);
    expect(isEngramError({ code: "CLOSED", describe: () => "" })).toBe(false);
  });
});
