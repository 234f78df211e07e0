import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, parseSmiles } from "../../src/domain/chem/rdkit.js";
import { enumerateStereoisomersTool } from "../../src/tools/enumerate_stereoisomers.js";
import { enumerateStereoisomers } from "../../src/domain/chem/stereoisomers.js";

const ctx = async () => ({ rdkit: await loadRDKit(), progress: () => {} });

test("enumerate_stereoisomers: tartaric acid gives 3 isomers (meso once); an assigned centre is kept unless only_unassigned is false", async () => {
  const c = await ctx();
  const tartaric = enumerateStereoisomersTool.run({ smiles: "OC(=O)C(O)C(O)C(=O)O" }, c);
  assert.equal(tartaric.isomer_count, 3);
  assert.equal(tartaric.centres, 2);
  const partly = enumerateStereoisomersTool.run({ smiles: "C[C@H](N)C(O)CC" }, c);
  assert.equal(partly.isomer_count, 2);
  assert.ok(
    partly.isomers.every((s) => (s.match(/@+/g) ?? []).length === 2),
    "both centres assigned in each",
  );
  const { rdkit } = c;
  const keep = (s: string) => {
    const m = rdkit.get_mol(s)!;
    const q = rdkit.get_qmol("C[C@H](N)")!;
    try {
      return m.get_substruct_match(q, JSON.stringify({ useChirality: true })) !== "{}";
    } finally {
      q.delete();
      m.delete();
    }
  };
  assert.ok(partly.isomers.every(keep), "the given centre kept");
  const all = enumerateStereoisomersTool.run({ smiles: "C[C@H](N)C(O)CC", only_unassigned: false }, c);
  assert.equal(all.isomer_count, 4);
  const alkene = enumerateStereoisomersTool.run({ smiles: "CC=CC" }, c);
  assert.deepEqual(alkene.isomers.sort(), ["C/C=C/C", "C/C=C\\C"]);
  assert.equal(alkene.double_bonds, 1);
  const none = enumerateStereoisomersTool.run({ smiles: "CCO" }, c);
  assert.deepEqual(none.isomers, ["CCO"]);
  assert.equal(none.truncated, false);
});

test("enumerate_stereoisomers: 2,3,4-trihydroxyglutaric acid has four isomers (two meso forms, r and s at the pseudo-asymmetric C3, and a pair of enantiomers); the thread's setting is restored", async () => {
  const { rdkit } = await ctx();
  const before = rdkit.use_legacy_stereo_perception(true);
  rdkit.use_legacy_stereo_perception(before);
  const r = enumerateStereoisomersTool.run({ smiles: "OC(=O)C(O)C(O)C(O)C(=O)O" }, { rdkit, progress: () => {} });
  assert.equal(r.isomer_count, 4, JSON.stringify(r.isomers));
  assert.equal(r.isomers.filter((s) => (s.match(/@+/g) ?? []).length === 3).length, 2, "two meso forms carry a C3 tag");
  assert.equal(r.isomers.filter((s) => (s.match(/@+/g) ?? []).length === 2).length, 2, "in the chiral pair C3 is no centre");
  assert.equal(rdkit.use_legacy_stereo_perception(before), before, "the setting is what it was before the tool ran");
});

test("enumerate_stereoisomers: ring cis/trans and ring double bonds of eight atoms and more are configurations (issue 36)", async () => {
  const c = await ctx();
  const trans = "C[C@H]1CC[C@@H](C)CC1";
  const cis = "C[C@H]1CC[C@H](C)CC1";
  const all = enumerateStereoisomersTool.run({ smiles: trans, only_unassigned: false }, c);
  assert.deepEqual(all.isomers.sort(), [trans, cis].sort(), "the trans input's list holds the trans and the cis form");
  assert.equal(all.centres, 2);
  const kept = enumerateStereoisomersTool.run({ smiles: trans }, c);
  assert.deepEqual(kept.isomers, [trans], "only_unassigned keeps the given configuration");
  const flat = enumerateStereoisomersTool.run({ smiles: "CC1CCC(C)CC1" }, c);
  assert.deepEqual(flat.isomers.sort(), [trans, cis].sort(), "the unassigned form gives both");
  const cyclooctene = enumerateStereoisomersTool.run({ smiles: "C1=CCCCCCC1" }, c);
  assert.deepEqual(cyclooctene.isomers.sort(), ["C1=C/CCCCCC/1", "C1=C\\CCCCCC/1"]);
  assert.equal(cyclooctene.double_bonds, 1);
  const cyclohexene = enumerateStereoisomersTool.run({ smiles: "C1=CCCCC1" }, c);
  assert.deepEqual(cyclohexene.isomers, ["C1=CCCCC1"], "rings under eight atoms hold a double bond cis only");
  const aminol = enumerateStereoisomersTool.run({ smiles: "NC1CCC(O)CC1" }, c);
  assert.equal(aminol.isomer_count, 2, "4-aminocyclohexanol: cis and trans");
});

test("enumerate_stereoisomers: past max isomers the first ones in binary counting order, truncated_by max_isomers", async () => {
  const { rdkit } = await ctx();
  const mol = parseSmiles(rdkit, "CC(O)C(O)C(O)C(O)C(O)CO");
  try {
    const r = enumerateStereoisomers(rdkit, mol, { maxIsomers: 5, deadline: Date.now() + 10_000 });
    assert.equal(r.isomers.length, 5);
    assert.equal(r.truncated_by, "max_isomers");
    const again = enumerateStereoisomers(rdkit, mol, { maxIsomers: 5, deadline: Date.now() + 10_000 });
    assert.deepEqual(again.isomers, r.isomers, "a fixed order");
  } finally {
    mol.delete();
  }
});
