/**
 * Skipping an oracle comparison (native RDKit, Open Babel, RDKit's data files) when the oracle is not
 * installed. With CHEMATIC_REQUIRE_ORACLES=1 (set by .ci/run) a missing oracle fails the test instead, so
 * CI can never pass by skipping the comparisons; without it a skip stays a skip that names its reason.
 */
import assert from "node:assert/strict";

export function requireOracles(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CHEMATIC_REQUIRE_ORACLES ?? "").trim().toLowerCase();
  return value === "1" || value === "true" || value === "yes" || value === "on";
}

/** Skips the test, saying why, or fails it when the oracles are required. */
export function skipOracle(t: { skip(message?: string): void }, reason: string): void {
  if (requireOracles()) assert.fail(`CHEMATIC_REQUIRE_ORACLES is set, and an oracle is missing: ${reason}`);
  t.skip(reason);
}
