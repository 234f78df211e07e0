/**
 * murcko_scaffold on the cases where MurckoDecompose's exact rules show, against native RDKit 2022.09
 * (GetScaffoldForMol then MolToSmiles): bracket atoms kept only for an exocyclic double bond (=[N+](C)C keeps
 * no hydrogen), core atoms that lose a neighbour (ring [N+], [nH+], [C@H], [c+]), exocyclic =N-C, and E/Z double
 * bonds whose stereo MolToSmiles perceives again from the written bond directions. Native SMILES are read back
 * by the WASM RDKit before comparing (its Kekulé N1=PN=PN=P1, written unperceived, reads back aromatic). Native
 * scaffolds RDKit itself cannot read back (an aromatic [c-] left without hydrogen) are listed and excused only
 * as such: ours stays a readable molecule.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, type RDKit } from "../../../src/domain/chem/rdkit.js";
import { murckoScaffoldTool } from "../../../src/tools/murcko_scaffold.js";
import { nativeRDKitMissing, oracleOutput, skipOracle } from "../../helpers/oracle.js";

const PROBES = [
  "C[N+](C)=C1C=CC(=C)C=C1",
  "C[N+]1(C)CCCCC1",
  "C[N+]1(C)CCC(C)CC1",
  "C/C(=C/c1ccccc1)c1ccccn1",
  "CC12CCC(CC1)C(C)(C)/N=C(/NN=O)S2",
  "ClP1(Cl)=NP(Cl)(Cl)=NP(Cl)(Cl)=N1",
  "CCCCCC(O)C1C(=O)OC(C)C(O)\\C=C/C=C\\C=C/C=C\\C=C(\\C)C(O)CC(O)CC(O)CC(O)CC(O)CC(O)CC1O",
  "CN(C)c1ccc(C(=C2C=CC(=[N+](C)C)C=C2)c2ccc(N(C)C)cc2)cc1",
  "C[C@H]1CC[C@@H](C)CC1C",
  "C[C@@]1(O)CCCCC1",
  "C[Si@H]1CCCC1",
  "C[nH+]1cccc1",
  "Cc1cc[nH+]cc1",
  "Cc1cccc[n+]1C",
  "C[c+]1cccccc1",
  "CN=C1CCCCC1",
  "C[NH+]=C1CCCCC1",
  "C[N+](C)=C1CCCCC1",
  "CC(C)=C1CCCCC1",
  "CC1=NCCCC1",
  "c1ccc(nc1)/C(C)=C/c1ccccc1",
  "C/C(c1ccccn1)=C/c1ccccc1",
  "C/C(/c1ccccc1)=C/c1ccccc1",
  "c1ccccc1/C(/C)=C/c1ccccc1",
  "c1ccccc1/C=C/c1ccccc1",
  "C/C=C1/CCCCC1",
  "CC/C(C)=C1/CCCCC1",
];
/** Native scaffolds that native RDKit cannot read back (aromatic [c-] without hydrogen). */
const UNREADABLE = ["CCc1cc[c-](C)[n+](=O)c1", "C[C-]1C=CC=C1"];

function recanon(rdkit: RDKit, smiles: string): string | null {
  if (smiles === "") return "";
  const mol = rdkit.get_mol(smiles);
  if (!mol) return null;
  try {
    return mol.is_valid() ? mol.get_smiles() : null;
  } finally {
    mol.delete();
  }
}

test("murcko_scaffold equals native GetScaffoldForMol on MurckoDecompose's hydrogen and stereo rules", async (t) => {
  const missing = await nativeRDKitMissing();
  if (missing !== undefined) {
    skipOracle(t, `native RDKit (/usr/bin/python3 with rdkit) is not installed: ${missing}`);
    return;
  }
  const script = [
    "import sys, json",
    "from rdkit import Chem, RDLogger",
    "from rdkit.Chem.Scaffolds import MurckoScaffold as M",
    "RDLogger.DisableLog('rdApp.*')",
    "json.dump([Chem.MolToSmiles(M.GetScaffoldForMol(Chem.MolFromSmiles(s))) for s in json.load(sys.stdin)], sys.stdout)",
  ].join("\n");
  const all = [...PROBES, ...UNREADABLE];
  const native = JSON.parse(await oracleOutput({ program: script }, { input: JSON.stringify(all) })) as string[];
  const rdkit = await loadRDKit();
  const diffs: string[] = [];
  all.forEach((smiles, i) => {
    const ours = murckoScaffoldTool.run({ smiles }, { rdkit, progress: () => {} }).scaffold;
    const want = recanon(rdkit, native[i]!);
    if (UNREADABLE.includes(smiles)) {
      assert.equal(want, null, `${smiles}: native ${native[i]} now reads back`);
      t.diagnostic(`${smiles}: native ${native[i]} (unreadable), ours ${ours}`);
    } else if (want !== ours) diffs.push(`${smiles}: native ${native[i]} ours ${ours}`);
  });
  assert.deepEqual(diffs, []);
});
