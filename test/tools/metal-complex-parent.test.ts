/**
 * A metal complex has no salt-stripped parent (issue 34 item 6): with parent: true, cisplatin was computed as [Pt+4]
 * (platinum's mass as the drug's MW); native RDKit's ChargeParent gives ammonia, equally useless. A molecule holding a
 * metal whose standardised parent would be a bare ion or carbon-free is its own parent, on every tool that takes
 * `parent` and in standardize, with METAL_COMPLEX_KEPT. Organic salts keep their organic parent; a metal-free
 * inorganic parent keeps INORGANIC_PARENT.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, rewrittenSmiles } from "../../src/domain/chem/rdkit.js";
import { allTools } from "../../src/tools/index.js";
import { calcPropertiesTool } from "../../src/tools/calc_properties.js";
import { standardizeTool } from "../../src/tools/standardize.js";
import type { ChemTool } from "../../src/contract/tool.js";

const CISPLATIN = "N[Pt](N)(Cl)Cl";
const ZINC_ACETATE = "[Zn+2].CC(=O)[O-].CC(=O)[O-]";

type Notes = { parent_smiles?: string; warnings?: Array<{ code: string }>; mw?: number };
const codes = (r: Notes) => (r.warnings ?? []).map((w) => w.code);

test("every tool that takes parent computes a metal complex as itself, saying METAL_COMPLEX_KEPT", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} } as never;
  const takingParent = allTools({}).filter(
    (t): t is ChemTool<Record<string, unknown>> => t.kind === "chem" && Object.keys(t.inputSchema.properties ?? {}).includes("parent"),
  );
  assert.ok(takingParent.length >= 7, `${takingParent.length} tools take parent`);
  for (const smiles of [CISPLATIN, ZINC_ACETATE]) {
    const itself = rewrittenSmiles(rdkit, smiles)!;
    for (const tool of takingParent) {
      const r = tool.run({ smiles, parent: true }, ctx) as Notes;
      assert.equal(r.parent_smiles, itself, `${tool.name} on ${smiles}`);
      assert.ok(codes(r).includes("METAL_COMPLEX_KEPT"), `${tool.name} on ${smiles}: ${codes(r).join(", ")}`);
      assert.ok(!codes(r).includes("INORGANIC_PARENT"), `${tool.name}: no INORGANIC_PARENT beside it`);
    }
  }
  // The values are the complex's: the same as without parent.
  const kept = calcPropertiesTool.run({ smiles: CISPLATIN, parent: true }, ctx) as Notes;
  const plain = calcPropertiesTool.run({ smiles: CISPLATIN }, ctx) as Notes;
  assert.equal(kept.mw, plain.mw);
  assert.ok(kept.mw! > 290, `cisplatin's MW, not platinum's (${kept.mw})`);
});

test("standardize keeps a metal complex as its own parent; organic salts and metal-free ions are as before", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} } as never;
  const std = (smiles: string) => standardizeTool.run({ smiles }, ctx) as { parent_smiles: string; warnings: string[]; changes: unknown[]; net_charge: number };
  const cis = std(CISPLATIN);
  assert.equal(cis.parent_smiles, rewrittenSmiles(rdkit, CISPLATIN));
  assert.equal(cis.net_charge, 0);
  assert.deepEqual(cis.changes, []);
  assert.match(cis.warnings.join(" "), /^METAL_COMPLEX_KEPT: .*\[Pt\+4\]/);
  // Sodium benzoate: an organic parent, no warning.
  const benzoate = std("O=C([O-])c1ccccc1.[Na+]");
  assert.equal(benzoate.parent_smiles, "O=C(O)c1ccccc1");
  assert.ok(!benzoate.warnings.some((w) => w.startsWith("METAL_COMPLEX_KEPT")));
  // Ammonium chloride holds no metal: its parent stays ammonia (neutralised), with INORGANIC_PARENT.
  const ammonium = calcPropertiesTool.run({ smiles: "[NH4+].[Cl-]", parent: true }, ctx) as Notes;
  assert.deepEqual(codes(ammonium), ["INORGANIC_PARENT"]);
  assert.equal(ammonium.parent_smiles, "N");
});
