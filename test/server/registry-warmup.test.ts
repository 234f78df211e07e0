/**
 * The registry's background compilation of validators (ToolRegistry.warmUp) waits while calls are in
 * progress, so a worker's answer never waits behind a compile, and goes on once they are done.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolRegistry } from "../../src/server/registry.js";
import { canonicalSmilesTool } from "../../src/tools/canonical_smiles.js";
import { calcPropertiesTool } from "../../src/tools/calc_properties.js";
import { Changes } from "../helpers/wait.js";

const compiled = (registry: ToolRegistry, name: string) => (registry.get(name) as unknown as { compiled: boolean }).compiled;

test("warmUp compiles nothing while busy, then every tool once idle", async () => {
  const registry = new ToolRegistry([canonicalSmilesTool, calcPropertiesTool]);
  const both = () => compiled(registry, "canonical_smiles") && compiled(registry, "calc_properties");
  let busy = true;
  let askedWhileBusy = 0;
  // The warm-up asks busy() before each step: each question is the event waited on (no fixed pause).
  const asked = new Changes();
  registry.warmUp(() => {
    if (busy) askedWhileBusy++;
    asked.notify();
    return busy;
  });
  await asked.until(() => askedWhileBusy >= 3, "the warm-up to find the registry busy three times", 30_000);
  assert.equal(compiled(registry, "canonical_smiles") || compiled(registry, "calc_properties"), false, "nothing compiled while busy");
  busy = false;
  // Asked again after each compile: it holds once the last one is done.
  await asked.until(both, "both tools compiled once idle", 30_000);
  assert.ok(both(), "both compiled once idle");
});
