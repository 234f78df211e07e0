/**
 * Atom map numbers kept through the tools that rewrite a molecule (issue 36 item 3): standardize,
 * enumerate_stereoisomers and retrosynthesis answered `*c1ccccc1*` for `[*:1]c1ccccc1[*:2]`. retrosynthesis is also
 * compared with native RDKit's BreakBRICSBonds, which keeps map numbers on every fragment; murcko_scaffold with GetScaffoldForMol.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, parseSmiles } from "../../../src/domain/chem/rdkit.js";
import { atomMapNumbers, encodeAtomMaps, MAP_ISOTOPE_BASE } from "../../../src/domain/chem/atom-maps.js";
import { standardizeTool } from "../../../src/tools/standardize.js";
import { enumerateStereoisomersTool } from "../../../src/tools/enumerate_stereoisomers.js";
import { retrosynthesisTool } from "../../../src/tools/retrosynthesis.js";
import { murckoScaffoldTool } from "../../../src/tools/murcko_scaffold.js";
import { oracleFixture } from "../../helpers/oracle.js";

const ctx = async () => ({ rdkit: await loadRDKit(), progress: () => {} });
const maps = (smiles: string): string[] => (smiles.match(/:\d+\]/g) ?? []).sort();

test("atom maps: read from the molblock in atom order; encoded as isotopes by dense rank and decoded back canonically", async () => {
  const { rdkit } = await ctx();
  const mol = parseSmiles(rdkit, "[*:7]c1ccccc1[13CH2:40][*:7]");
  try {
    assert.deepEqual(atomMapNumbers(mol), [7, 0, 0, 0, 0, 0, 0, 40, 7]);
    const enc = encodeAtomMaps(rdkit, mol)!;
    try {
      const written = enc.mol.get_smiles();
      assert.ok(written.includes(`[${MAP_ISOTOPE_BASE}*]`), written);
      assert.ok(written.includes(`[${2 * MAP_ISOTOPE_BASE + 13}CH2]`), written);
      assert.equal(enc.decodeSmiles(written), mol.get_smiles());
      assert.equal(enc.decodeText("no atoms [5*] here"), "no atoms [5*] here", "isotopes under the base are real isotopes");
    } finally {
      enc.mol.delete();
    }
  } finally {
    mol.delete();
  }
  const plain = parseSmiles(rdkit, "c1ccccc1[13CH3]");
  try {
    assert.equal(encodeAtomMaps(rdkit, plain), undefined, "no map numbers, nothing to encode");
  } finally {
    plain.delete();
  }
});

test("atom maps: standardize keeps them on the parent, through salt stripping, normalisation and neutralisation", async () => {
  const c = await ctx();
  const run = (smiles: string) => standardizeTool.run({ smiles }, c) as { parent_smiles: string; changed: boolean };
  const benzene = run("[*:1]c1ccccc1[*:2]");
  assert.equal(benzene.parent_smiles, "c1ccc([*:2])c([*:1])c1");
  assert.equal(benzene.changed, false);
  const salt = run("[*:1]c1ccc(C(=O)[O-])cc1[*:2].[Na+]");
  assert.deepEqual(maps(salt.parent_smiles), [":1]", ":2]"], salt.parent_smiles);
  assert.ok(salt.parent_smiles === "O=C(O)c1ccc([*:1])c([*:2])c1", salt.parent_smiles);
  const nitro = run("[*:3]CN(=O)=O");
  assert.equal(nitro.parent_smiles, "O=[N+]([O-])C[*:3]");
  const mapped = run("[CH3:1][NH3+:2].[Cl-]");
  assert.equal(mapped.parent_smiles, "[CH3:1][NH2:2]", "map numbers on ordinary atoms too");
});

test("atom maps: enumerate_stereoisomers writes each isomer with the map numbers", async () => {
  const c = await ctx();
  const r = enumerateStereoisomersTool.run({ smiles: "[*:1]CC(O)C(N)C[*:2]" }, c);
  assert.equal(r.isomer_count, 4);
  for (const s of r.isomers) assert.deepEqual(maps(s), [":1]", ":2]"], s);
  const ring = enumerateStereoisomersTool.run({ smiles: "[*:1]C1CCC([*:2])CC1" }, c);
  assert.ok(
    ring.isomers.every((s) => maps(s).length === 2),
    JSON.stringify(ring.isomers),
  );
});

test("atom maps: retrosynthesis fragments carry the map numbers, equal to native BreakBRICSBonds", async () => {
  const c = await ctx();
  const smiles = "[*:1]c1ccc(NC(=O)C[C@@H](C)O)cc1C(=O)OC[*:2]";
  const r = retrosynthesisTool.run({ smiles, max_disconnections: 20 }, c) as { target: string; disconnections: Array<{ fragments: string[] }> };
  assert.deepEqual(maps(r.target), [":1]", ":2]"]);
  for (const d of r.disconnections) assert.deepEqual(maps(d.fragments.join(".")), [":1]", ":2]"], d.fragments.join("."));
  // Native BreakBRICSBonds on each bond: a fixture (scripts/make-oracle-fixtures.py), the input being fixed.
  const native = JSON.parse(oracleFixture("atom-maps-brics", { args: [smiles] })) as string[][];
  const canon = (s: string): string => {
    const m = c.rdkit.get_mol(s)!;
    try {
      return m.get_smiles();
    } finally {
      m.delete();
    }
  };
  const ours = r.disconnections.map((d) => d.fragments.map(canon).sort()).sort();
  assert.deepEqual(ours, native.map((pair) => pair.map(canon).sort()).sort());
});

test("atom maps: murcko_scaffold keeps them on the scaffold's atoms (plain and generic), equal to native GetScaffoldForMol", async () => {
  const c = await ctx();
  const smiles = "[CH2:5]1CCC([*:1])CC1c1cc[cH:3]cc1C[*:2]";
  const plain = (murckoScaffoldTool.run({ smiles }, c) as { scaffold: string }).scaffold;
  const generic = (murckoScaffoldTool.run({ smiles, generic: true }, c) as { scaffold: string }).scaffold;
  assert.deepEqual(maps(plain), [":3]", ":5]"], plain);
  assert.deepEqual(maps(generic), [":3]", ":5]"], generic);
  // Native GetScaffoldForMol and MakeScaffoldGeneric: a fixture (scripts/make-oracle-fixtures.py), the input being fixed.
  const [nativePlain, nativeGeneric] = oracleFixture("atom-maps-murcko", { args: [smiles] })
    .trim()
    .split("\n");
  assert.equal(plain, nativePlain);
  assert.equal(generic, nativeGeneric);
});
