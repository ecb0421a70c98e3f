import { describe, expect, it } from "vitest";
import { Coalescer } from "../../src/sync/coalesce.js";

describe("Coalescer", () => {
  it("runs once when idle, and queues one merged follow-up while busy", async () => {
    const runs: string[][] = [];
    let release: () => void = () => {};
    const gate = () => new Promise<void>((r) => (release = r));
    let wait = gate();
    const c = new Coalescer<string[], number>(
      async (opts) => {
        runs.push(opts);
        await wait;
        return runs.length;
      },
      (a, b) => [...a, ...b],
    );
    const first = c.request(["a"]);
    const second = c.request(["b"]);
    const third = c.request(["c"]);
    expect(c.busy).toBe(true);
    const firstGate = release;
    wait = gate();
    firstGate();
    expect(await first).toBe(1);
    release();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    expect(runs).toEqual([["a"], ["b", "c"]]);
    await c.settled();
    expect(c.busy).toBe(false);
  });

  it("a failed run rejects its callers but does not block the follow-up", async () => {
    let n = 0;
    const c = new Coalescer<void, number>(
      async () => {
        n++;
        if (n === 1) throw new Error("boom");
        return n;
      },
      () => undefined,
    );
    const a = c.request();
    const b = c.request();
    await expect(a).rejects.toThrow("boom");
    expect(await b).toBe(2);
  });
});
