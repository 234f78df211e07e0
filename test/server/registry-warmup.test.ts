/**
 * The registry's background compilation of validators (ToolRegistry.warmUp) waits while calls are in
 * progress, so a worker's answer never waits behind a compile, and goes on once they are done.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolRegistry } from "../../src/server/registry.js";
import { canonicalSmilesTool } from "../../src/tools/canonical_smiles.js";
import { calcPropertiesTool } from "../../src/tools/calc_properties.js";

const compiled = (registry: ToolRegistry, name: string) => (registry.get(name) as unknown as { compiled: boolean }).compiled;

test("warmUp compiles nothing while busy, then every tool once idle", async () => {
  const registry = new ToolRegistry([canonicalSmilesTool, calcPropertiesTool]);
  let busy = true;
  registry.warmUp(() => busy);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(compiled(registry, "canonical_smiles") || compiled(registry, "calc_properties"), false, "nothing compiled while busy");
  busy = false;
  const deadline = Date.now() + 30_000;
  while (!(compiled(registry, "canonical_smiles") && compiled(registry, "calc_properties")) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(compiled(registry, "canonical_smiles") && compiled(registry, "calc_properties"), "both compiled once idle");
});
