import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from "../src/heap-growth.js";

function host(execArgv: string[] = []) {
  const flags: string[] = [];
  return { flags, host: { setFlags: (f: string) => flags.push(f), execArgv } };
}

describe("limitHeapGrowth", () => {
  it("sets V8's heap growing percent", () => {
    const { flags, host: h } = host();
    limitHeapGrowth(undefined, h);
    expect(flags).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it("leaves a percent Node was started with alone, in either spelling", () => {
    for (const arg of ["--heap-growing-percent=0", "--heap_growing_percent=100"]) {
      const { flags, host: h } = host(["--enable-source-maps", arg]);
      limitHeapGrowth(undefined, h);
      expect(flags, arg).toEqual([]);
    }
  });

  it("refuses a percent V8 would ignore", () => {
    expect(() => limitHeapGrowth(0, host().host)).toThrow(/whole number ≥ 1, got 0/);
    expect(() => limitHeapGrowth(1.5, host().host)).toThrow(RangeError);
  });
});
