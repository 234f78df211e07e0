/**
 * Units stated once (issue 34 item 5): every numeric answer field says its unit, from contract/units.ts (by field
 * name) or in its own words; canvas_annotate's columns say the same; docs/tools.md's units table is the table itself.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../../src/domain/assets.js";
import { UNITS } from "../../src/contract/units.js";
import { ToolRegistry } from "../../src/server/registry.js";
import { allTools } from "../../src/tools/index.js";
import { planColumns } from "../../src/tools/canvas_annotate.js";

type Schema = Record<string, unknown>;

/** Every number-typed field of a schema (not integers: counts and indices), with its path and description. */
function numberFields(schema: unknown, path = ""): Array<{ path: string; description: string }> {
  if (schema === null || typeof schema !== "object") return [];
  const s = schema as Schema;
  const out: Array<{ path: string; description: string }> = [];
  const isNumber =
    s.type === "number" ||
    (Array.isArray(s.type) && s.type.includes("number")) ||
    (Array.isArray(s.anyOf) && (s.anyOf as Schema[]).some((a) => a.type === "number"));
  if (isNumber && !path.endsWith("[]")) out.push({ path, description: String(s.description ?? "") });
  for (const key of ["properties", "$defs"]) {
    if (s[key] && typeof s[key] === "object") for (const [name, child] of Object.entries(s[key] as Schema)) out.push(...numberFields(child, `${path}/${name}`));
  }
  for (const key of ["items", "additionalProperties"]) if (s[key] && typeof s[key] === "object") out.push(...numberFields(s[key], `${path}[]`));
  for (const key of ["anyOf", "oneOf", "allOf"]) if (Array.isArray(s[key])) for (const child of s[key] as unknown[]) out.push(...numberFields(child, path));
  return out;
}

const STATES_UNIT = /Unit: |\bdegrees\b|\bpercent\b|%|g\/mol|Å|kcal\/mol|mol\/L|\blog10\b|\bunitless\b/;

test("every numeric field of every tool's answer names its unit", () => {
  const registry = new ToolRegistry(allTools({}, { dataframeDrop: true }));
  const silent: string[] = [];
  let checked = 0;
  for (const declared of allTools({}, { dataframeDrop: true })) {
    const tool = registry.get(declared.name)!.tool;
    for (const field of numberFields(tool.outputSchema)) {
      checked++;
      if (!STATES_UNIT.test(field.description)) silent.push(`${tool.name}${field.path}: ${field.description || "(no description)"}`);
    }
  }
  assert.ok(checked > 100, `${checked} numeric fields`);
  assert.deepEqual(silent, []);
});

test("canvas_annotate's columns carry the same units as the tools' fields", () => {
  const { columns } = planColumns(["mw", "tpsa", "logp", "qed", { kind: "ecfp4_similarity", as: "sim_to_hit", query_smiles: "CCO" }] as never);
  const by = Object.fromEntries(columns.map((c) => [c.name, c.description]));
  assert.match(by.mw!, /g\/mol/);
  assert.match(by.tpsa!, /Å²/);
  assert.match(by.logp!, /log10 units/);
  assert.match(by.qed!, /unitless, 0 to 1/);
  assert.match(by.sim_to_hit!, /unitless, 0 to 1/);
});

test("docs/tools.md's units table is contract/units.ts", () => {
  const doc = readFileSync(join(projectRoot(), "docs", "tools.md"), "utf8");
  const block = doc.slice(doc.indexOf("<!-- units:start"), doc.indexOf("<!-- units:end"));
  const rows = Object.fromEntries([...block.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)].map((m) => [m[1]!, m[2]!]));
  assert.deepEqual(rows, { ...UNITS });
});
