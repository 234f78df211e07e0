/**
 * Every SMILES a tool builds is canonical (issue 34 item 1): scaffolds (plain and generic), R-group substituents,
 * MMP constants and transformations, BRICS fragments, reaction products, stereoisomers and standardised parents
 * equal canonical_smiles of themselves, so grouping by any of them never splits one structure in two. The
 * molecules carry E/Z double bonds that stop being stereogenic once side chains are cut, ring cis/trans pairs,
 * centres, charges and salts. Tamoxifen's Z, E and unspecified forms give one scaffold (before the fix the Z form's
 * scaffold kept its E/Z marks: `C(=C(/c1ccccc1)c1ccccc1)/c1ccccc1`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, rewrittenSmiles } from "../../src/domain/chem/rdkit.js";
import { canonicalSmilesTool } from "../../src/tools/canonical_smiles.js";
import { enumerateReactionTool } from "../../src/tools/enumerate_reaction.js";
import { enumerateStereoisomersTool } from "../../src/tools/enumerate_stereoisomers.js";
import { matchedPairsTool } from "../../src/tools/matched_pairs.js";
import { murckoScaffoldTool } from "../../src/tools/murcko_scaffold.js";
import { retrosynthesisTool } from "../../src/tools/retrosynthesis.js";
import { rgroupDecomposeTool } from "../../src/tools/rgroup_decompose.js";
import { standardizeTool } from "../../src/tools/standardize.js";

const TAMOXIFEN = {
  Z: "CC/C(=C(\\c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1",
  E: "CC/C(=C(/c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1",
  unspecified: "CCC(=C(c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1",
};

const SERIES = [
  ...Object.values(TAMOXIFEN),
  "CC/C(=C(\\c1ccccc1)c1ccc(OCCN(C)CC)cc1)c1ccccc1",
  "CC/C(=C(\\c1ccccc1)c1ccc(OCCN)cc1)c1ccccc1",
  "C[C@@H]1CC[C@H](CC1)c1ccccc1/C=C/C",
  "C[C@H]1CC[C@H](CC1)c1ccccc1/C=C/C",
  "F/C=C/[C@H]1CCCN1C(=O)c1ccccc1",
  "O=C(O)/C=C/c1ccc(O)cc1",
  "C/C=C/c1ccc(cc1)C[C@H](N)C(=O)O",
  "C[C@H](N)C(=O)Nc1ccc(Cl)cc1.Cl",
  "OC(=O)[C@@H]1CCCN1C(=O)/C=C\\c1ccccc1",
  "CC(C)(C)OC(=O)N[C@@H](Cc1ccccc1)C(=O)N[C@H]1CC[C@@H](CC1)C(=O)[O-].[Na+]",
  "C1CC/C=C\\CCC1c1ccccc1",
];

/** Every SMILES-valued string of an answer: keys naming a structure, reaction SMILES split at >>. */
function structures(value: unknown, key = ""): string[] {
  if (typeof value === "string") {
    if (!/smiles|scaffold|^core$|fragments?$|products?$|isomers?$|transformation|constant|^R\d+$/i.test(key) || /input|read_as/.test(key)) return [];
    return value.split(">>").filter((s) => s !== "");
  }
  if (Array.isArray(value)) return value.flatMap((v) => structures(v, key));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => structures(v, k));
  return [];
}

test("every SMILES a set or fragment tool builds equals canonical_smiles of itself", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  const answers: Array<[string, unknown]> = [];
  for (const smiles of SERIES) {
    answers.push([`murcko_scaffold ${smiles}`, murckoScaffoldTool.run({ smiles }, ctx)]);
    answers.push([`murcko_scaffold generic ${smiles}`, murckoScaffoldTool.run({ smiles, generic: true }, ctx)]);
    if (!smiles.includes(".")) answers.push([`retrosynthesis ${smiles}`, retrosynthesisTool.run({ smiles }, ctx)]);
    answers.push([`standardize ${smiles}`, standardizeTool.run({ smiles }, ctx)]);
    answers.push([`enumerate_stereoisomers ${smiles}`, enumerateStereoisomersTool.run({ smiles, only_unassigned: false }, ctx)]);
  }
  answers.push(["matched_pairs", matchedPairsTool.run({ smiles_list: SERIES }, ctx)]);
  answers.push(["rgroup_decompose", rgroupDecomposeTool.run({ core: "c1ccc(cc1)C(=C)c1ccccc1", smiles_list: SERIES }, ctx)]);
  answers.push([
    "enumerate_reaction",
    enumerateReactionTool.run(
      { reaction_smarts: "[C:1](=O)[OH].[N:2]>>[C:1](=O)[N:2]", reactants: [["O=C(O)/C=C/c1ccccc1", "OC(=O)[C@@H]1CCCN1"], ["N[C@@H](C)c1ccccc1"]] },
      ctx,
    ),
  ]);
  let checked = 0;
  const differing: string[] = [];
  for (const [label, answer] of answers) {
    for (const smiles of structures(answer)) {
      const again = rewrittenSmiles(rdkit, smiles);
      if (again === undefined) continue; // a fragment RDKit cannot read back (an aromatic atom outside its ring) stays as written
      checked++;
      const canonical = (canonicalSmilesTool.run({ smiles }, ctx) as { canonical: string }).canonical;
      if (canonical !== smiles) differing.push(`${label}: ${smiles} (canonical_smiles: ${canonical})`);
    }
  }
  assert.ok(checked > 150, `checked ${checked} SMILES`);
  assert.deepEqual(differing, []);
});

test("tamoxifen's Z, E and unspecified forms give one scaffold, plain and generic", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  for (const generic of [false, true]) {
    const scaffolds = new Set(Object.values(TAMOXIFEN).map((smiles) => (murckoScaffoldTool.run({ smiles, generic }, ctx) as { scaffold: string }).scaffold));
    assert.deepEqual([...scaffolds], [generic ? "C1CCC(CC(C2CCCCC2)C2CCCCC2)CC1" : "C(=C(c1ccccc1)c1ccccc1)c1ccccc1"]);
  }
});
