/**
 * molecule_context_pack equals the single tools it bundles (same RDKit, same functions), validates against
 * its own outputSchema in every format, and renders upstream-free, inert text.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { createAjv } from "../../src/server/registry.js";
import { moleculeContextPackTool } from "../../src/tools/molecule_context_pack.js";
import { calcPropertiesTool } from "../../src/tools/calc_properties.js";
import { lipinskiCheckTool } from "../../src/tools/lipinski_check.js";
import { painsCheckTool } from "../../src/tools/pains_check.js";
import { brenkCheckTool } from "../../src/tools/brenk_check.js";
import { admetProfileTool } from "../../src/tools/admet_profile.js";
import { saScoreTool } from "../../src/tools/sa_score.js";
import { representationRouterTool } from "../../src/tools/representation_router.js";
import type { ChemContext } from "../../src/contract/tool.js";

const MOLECULES = [
  "CC(=O)Oc1ccccc1C(=O)O",
  "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",
  "CC(C)Cc1ccc(cc1)C(C)C(=O)O",
  "CC(=O)Nc1ccc(O)cc1",
  "Cc1ccc(cc1Nc1nccc(n1)c1cccnc1)NC(=O)c1ccc(cc1)CN1CCN(C)CC1",
  "COc1ccc2[nH]cc(CCN(C)C)c2c1",
  "CC1(C)S[C@@H]2[C@H](NC(=O)Cc3ccccc3)C(=O)N2[C@H]1C(=O)O",
  "O=C(C=Cc1ccc(O)c(O)c1)O",
  "Oc1ccc(N=Nc2ccccc2)cc1",
  "C[N+](C)(C)CC(=O)[O-]",
  "CCN(CC)CCNC(=O)c1ccc(N)cc1.Cl",
  "[Na+].[O-]C(=O)c1ccccc1",
];

type Obj = Record<string, unknown>;
/** Any chemistry tool, whatever its argument type. */
type Runnable = { run(args: never, ctx: ChemContext): unknown };

test("the pack equals the single tools' answers and validates in every format", async () => {
  const rdkit = await loadRDKit();
  const ctx: ChemContext = { rdkit, progress: () => {} };
  const run = (tool: Runnable, args: Obj) => tool.run(args as never, ctx) as Obj;
  const ajv = createAjv();
  const validate = ajv.compile(moleculeContextPackTool.outputSchema);
  for (const smiles of MOLECULES) {
    const pack = run(moleculeContextPackTool, { smiles });
    assert.ok(validate(pack), `${smiles}: ${ajv.errorsText(validate.errors)}`);
    const props = run(calcPropertiesTool, { smiles });
    const p = pack.properties as Obj;
    for (const key of ["logp", "tpsa", "hbd", "hba", "rotatable_bonds", "qed"]) assert.equal(p[key], props[key], `${smiles} ${key}`);
    assert.equal(p.heavy_atoms, props.heavy_atom_count);
    const ids = pack.identifiers as Obj;
    assert.deepEqual([ids.mw, ids.exact_mass, ids.formula], [props.mw, props.exact_mass, props.formula]);
    const reps = run(representationRouterTool, { smiles, task: "identification", formats: ["inchikey"] });
    assert.equal(ids.inchikey, (reps.representations as Obj).inchikey, smiles);
    assert.equal(ids.inchi, reps.representation, smiles);
    assert.equal((pack.representations as Obj).canonical_smiles, ids.smiles);
    const dl = pack.drug_likeness as Obj;
    assert.equal(dl.lipinski_passes, run(lipinskiCheckTool, { smiles }).passes, `${smiles} lipinski`);
    assert.deepEqual(dl.pains_alerts, run(painsCheckTool, { smiles }).alerts);
    assert.deepEqual(dl.brenk_alerts, run(brenkCheckTool, { smiles }).alerts);
    assert.equal(p.sa_score, run(saScoreTool, { smiles }).sa_score);
    const admet = run(admetProfileTool, { smiles });
    for (const [key, value] of Object.entries(pack.admet as Obj)) assert.deepEqual(value, admet[key], `${smiles} admet.${key}`);
    for (const format of ["markdown", "prompt"] as const) {
      const text = run(moleculeContextPackTool, { smiles, format });
      assert.ok(validate(text), ajv.errorsText(validate.errors));
      assert.equal(text.format, format);
      assert.ok(typeof text.context === "string" && text.context.includes(String(ids.formula).replace(/[+-]/g, "")), `${format} names the formula`);
    }
  }
});

test("errors: invalid SMILES, a molecule over the pack's cap", async () => {
  const rdkit = await loadRDKit();
  const ctx: ChemContext = { rdkit, progress: () => {} };
  assert.throws(
    () => moleculeContextPackTool.run({ smiles: "C1CC(" }, ctx),
    (e: Error & { code?: string }) => e.code === "INVALID_SMILES",
  );
  assert.throws(
    () => moleculeContextPackTool.run({ smiles: "C(C)".repeat(600) }, ctx),
    (e: Error & { code?: string }) => e.code === "MOLECULE_TOO_LARGE",
  );
});
