import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../src/embedding/circuit-breaker.js";

const policy = { failureThreshold: 3, cooldownMs: 1000, finalCooldownMs: 10_000 };

describe("CircuitBreaker", () => {
  it("opens after consecutive failures, then lets one trial call through after the cool-down", () => {
    let now = 0;
    const breaker = new CircuitBreaker(policy, () => now);
    for (let i = 0; i < 2; i++) breaker.failure(new Error("500"), { final: false });
    expect(breaker.allows()).toBe(true);
    breaker.failure(new Error("500"), { final: false });
    expect(breaker.allows()).toBe(false);
    expect(breaker.state()).toMatchObject({ state: "open", failures: 3, lastError: "500" });

    now = 1000;
    expect(breaker.state().state).toBe("half-open");
    expect(breaker.allows()).toBe(true);
    breaker.begin();
    expect(breaker.allows()).toBe(false); // only one trial at a time
    breaker.success();
    expect(breaker.state()).toMatchObject({ state: "closed", failures: 0, openUntil: null });
  });

  it("opens at once, for the long cool-down, on a final error", () => {
    let now = 0;
    const breaker = new CircuitBreaker(policy, () => now);
    breaker.failure(new Error("quota"), { final: true });
    expect(breaker.allows()).toBe(false);
    now = 9_999;
    expect(breaker.allows()).toBe(false);
    now = 10_000;
    expect(breaker.allows()).toBe(true);
  });

  it("stays open at least as long as the provider asked", () => {
    let now = 0;
    const breaker = new CircuitBreaker(policy, () => now);
    breaker.failure(new Error("429"), { final: true, retryAfterMs: 3_600_000 });
    now = 3_599_999;
    expect(breaker.allows()).toBe(false);
  });

  it("a failed trial re-opens the circuit", () => {
    let now = 0;
    const breaker = new CircuitBreaker(policy, () => now);
    breaker.failure(new Error("x"), { final: true });
    now = 10_000;
    breaker.begin();
    breaker.failure(new Error("y"), { final: false });
    expect(breaker.allows()).toBe(false);
  });

  it("restores a state saved by another process", () => {
    const breaker = new CircuitBreaker(policy, () => 5);
    breaker.restore({ failures: 4, openUntil: 100 });
    expect(breaker.allows()).toBe(false);
    expect(breaker.state().failures).toBe(4);
  });
});
