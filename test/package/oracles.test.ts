/** CHEMATIC_REQUIRE_ORACLES turns a skipped oracle comparison into a failure; without it a skip stays a skip. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { requireOracles, skipOracle } from "../helpers/oracle.js";

function recorder() {
  const skipped: string[] = [];
  return { t: { skip: (m?: string) => void skipped.push(m ?? "") }, skipped };
}

test("with CHEMATIC_REQUIRE_ORACLES=1 a missing oracle fails the test", () => {
  const before = process.env.CHEMATIC_REQUIRE_ORACLES;
  process.env.CHEMATIC_REQUIRE_ORACLES = "1";
  try {
    const { t, skipped } = recorder();
    assert.throws(() => skipOracle(t, "native RDKit is absent"), /CHEMATIC_REQUIRE_ORACLES is set, and an oracle is missing: native RDKit is absent/);
    assert.deepEqual(skipped, []);
  } finally {
    if (before === undefined) delete process.env.CHEMATIC_REQUIRE_ORACLES;
    else process.env.CHEMATIC_REQUIRE_ORACLES = before;
  }
});

test("without it the test is skipped, naming the reason", () => {
  assert.equal(requireOracles({}), false);
  assert.equal(requireOracles({ CHEMATIC_REQUIRE_ORACLES: "true" }), true);
  const before = process.env.CHEMATIC_REQUIRE_ORACLES;
  delete process.env.CHEMATIC_REQUIRE_ORACLES;
  try {
    const { t, skipped } = recorder();
    skipOracle(t, "Open Babel is absent");
    assert.deepEqual(skipped, ["Open Babel is absent"]);
  } finally {
    if (before !== undefined) process.env.CHEMATIC_REQUIRE_ORACLES = before;
  }
});
