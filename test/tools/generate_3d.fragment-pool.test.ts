/**
 * generate_3d with one conformer asks OpenChemLib's self-organiser for one conformer per rigid fragment
 * instead of 16 (issue 17, item 4: the self-organiser was 80-90% of a drug's time, docs/performance.md).
 * The count is edited into the compiled library at load; these tests fail when the installed OpenChemLib no
 * longer has the edited pattern (the speed-up would silently be gone), when the one-conformer path is not
 * taken, and when a molecule whose single fragment conformer gives a degenerate geometry does not fall back
 * to the full search.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fragmentPoolEdited } from "../../src/domain/chem/conformers.js";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { generate3dTool } from "../../src/tools/generate_3d.js";

interface Output {
  energy_kcal_mol: number;
  method: string;
  conformers: unknown[];
}

const run = async (args: Record<string, unknown>) =>
  generate3dTool.run(args as { smiles: string }, { rdkit: await loadRDKit(), progress: () => {} }) as unknown as Output;

test("generate_3d: OpenChemLib's fragment conformer count is editable in the installed build", () => {
  assert.equal(fragmentPoolEdited(), true, "the self-organiser pattern was not found exactly once in openchemlib's dist/openchemlib.js");
});

test("generate_3d: one conformer uses one self-organised conformer per rigid fragment, several use OpenChemLib's 16", async () => {
  const one = await run({ smiles: "CC(=O)Oc1ccccc1C(=O)O" });
  assert.match(one.method, /one self-organised conformer per rigid fragment/);
  assert.ok(Number.isFinite(one.energy_kcal_mol));
  const several = await run({ smiles: "CC(=O)Oc1ccccc1C(=O)O", num_conformers: 2 });
  assert.match(several.method, /up to 16 self-organised conformers per rigid fragment/);
});

test("generate_3d: a molecule whose one-conformer fragments give a non-finite energy falls back to the full search", async () => {
  // NCI first_5K.smi, stereo specified by the oracle test's enumeration: with one conformer per fragment the
  // geometry's MMFF94s energy is NaN (seed 42); the full search answers.
  const out = await run({ smiles: "N#C[C@H](c1ccccc1)C(c1ccccc1)c1ccccc1" });
  assert.ok(Number.isFinite(out.energy_kcal_mol));
  assert.match(out.method, /up to 16 self-organised conformers per rigid fragment/);
});
