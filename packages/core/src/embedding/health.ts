import type { EmbedderChain } from "./chain.js";
import type { CircuitState } from "./circuit-breaker.js";

/** Meta key where provider health is kept between processes. */
export const HEALTH_META_KEY = "engram.providerHealth";

/** What is remembered of one provider's circuit between processes. */
type HealthRecord = Pick<CircuitState, "failures" | "openUntil" | "lastError" | "lastErrorCode">;

/**
 * Give the chain's breakers the state another process saw (a provider paused by one CLI call stays
 * paused for the next), from the JSON {@link healthJson} wrote.
 */
export function restoreHealth(chain: EmbedderChain, json: string | undefined): void {
  let saved: Record<string, HealthRecord> | null = null;
  try {
    saved = json ? (JSON.parse(json) as Record<string, HealthRecord>) : null;
  } catch {
    return;
  }
  if (!saved || typeof saved !== "object") return;
  for (const member of chain.members) {
    const record = saved[member.describe()];
    if (record) member.breaker.restore(record);
  }
}

/** The chain's circuits as JSON (stable for equal states, so unchanged health is not rewritten). */
export function healthJson(chain: EmbedderChain): string {
  const health: Record<string, HealthRecord> = {};
  for (const member of chain.members) {
    const { failures, openUntil, lastError, lastErrorCode } = member.circuit();
    health[member.describe()] = { failures, openUntil, lastError, lastErrorCode };
  }
  return JSON.stringify(health);
}
