/**
 * find_mcs behaviour that needs no oracle (the oracle comparison is test/domain/chem/mcs.oracle.test.ts),
 * and a heap check for the four search tools of this module group: pains_check, brenk_check, smarts_match
 * and find_mcs, valid inputs and every error path, must not grow the WASM heap (a forgotten delete() of a
 * Mol, query or MolList would).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { loadRDKit, wasmHeapBytes } from "../../src/domain/chem/rdkit.js";
import { substructureSmiles } from "../../src/domain/chem/mcs.js";
import { findMcsTool } from "../../src/tools/find_mcs.js";
import { painsCheckTool } from "../../src/tools/pains_check.js";
import { brenkCheckTool } from "../../src/tools/brenk_check.js";
import { smartsMatchTool } from "../../src/tools/smarts_match.js";

type Out = { mcs: string | null; mcs_smarts: string; atom_count: number; bond_count: number; timed_out: boolean; note?: string };

function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ToolError) return e;
    throw e;
  }
  throw new Error("expected a ToolError");
}

test("find_mcs: SMILES of the common part, null when nothing is shared, typed errors", async () => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  const run = (args: Parameters<typeof findMcsTool.run>[0]) => findMcsTool.run(args, ctx) as unknown as Out;

  const acid = run({ smiles_list: ["CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1O"] });
  assert.deepEqual([acid.mcs, acid.atom_count, acid.bond_count, acid.timed_out], ["O=C(O)c1ccccc1O", 10, 10, false]);
  assert.equal(acid.note, undefined);

  // Chain carbons do not match ring carbons (ring_matches_ring_only): nothing in common.
  const none = run({ smiles_list: ["CCO", "c1ccccc1"] });
  assert.deepEqual([none.mcs, none.mcs_smarts, none.atom_count, none.bond_count], [null, "", 0, 0]);
  // Without that rule, C-C is common (and FMCS needs at least one bond).
  const loose = run({ smiles_list: ["CCO", "c1ccccc1"], ring_matches_ring_only: false, complete_rings_only: false, bond_compare: "any" });
  assert.deepEqual([loose.mcs, loose.atom_count, loose.bond_count], ["CC", 2, 1]);

  // Cut bonds become hydrogens: toluene and benzoic acid share the ring plus one carbon.
  assert.equal(run({ smiles_list: ["Cc1ccccc1", "OC(=O)c1ccccc1"] }).mcs, "Cc1ccccc1");
  // Any-atom comparison: pyridine and benzene share a six-membered aromatic ring; the SMILES is the first's.
  assert.equal(run({ smiles_list: ["c1ccncc1", "c1ccccc1"], atom_compare: "any" }).mcs, "c1ccncc1");
  // Isotope comparison matches isotope labels, not elements.
  const iso = run({ smiles_list: ["[2H]OC([13CH3])=O", "[13CH3]C(=O)O"], atom_compare: "isotopes", ring_matches_ring_only: false });
  assert.ok(iso.atom_count >= 1);

  // RDKit writes a one-atom MCS under any-atom comparison with one molecule's element ([#35&!R], native
  // RDKit too); the SMILES is then the first molecule's matching atom.
  const single = run({ smiles_list: ["CCC(CC)C=NO", "BrC1CCCC1"], atom_compare: "any", bond_compare: "any", complete_rings_only: false });
  assert.deepEqual([single.mcs_smarts, single.atom_count, single.mcs], ["[#35&!R]", 1, "C"]);

  const bad = errorOf(() => run({ smiles_list: ["CCO", "C1CC"] }));
  assert.equal(bad.code, "INVALID_SMILES");
  assert.equal(bad.details.argument, "smiles_list[1]");
});

test("the MCS SMILES keeps charges and valences of the first molecule", async () => {
  const rdkit = await loadRDKit();
  const mol = rdkit.get_mol("C[N+](C)(C)Cc1ccccc1[N+](=O)[O-]");
  assert.ok(mol);
  try {
    // Ring plus nitro N and one O: the N keeps its charge and gets an H for the cut N-O bond.
    assert.equal(substructureSmiles(rdkit, mol, "c1ccccc1[N+]=O"), "O=[NH+]c1ccccc1");
    assert.deepEqual(substructureSmiles(rdkit, mol, "[Cl]"), { note: "the MCS SMARTS does not match the first molecule" });
  } finally {
    mol.delete();
  }
});

test("pains_check, brenk_check, smarts_match and find_mcs do not grow the WASM heap", { timeout: 300_000 }, async (t) => {
  const rdkit = await loadRDKit();
  const ctx = { rdkit, progress: () => {} };
  const molecules = [
    "CC(=O)Oc1ccccc1C(=O)O",
    "CC1=CC(=O)C=CC1=O",
    "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1",
    "O=Cc1ccc(O)c(O)c1",
    "CCCCCCCC[N+](C)(C)C",
  ];
  const invalid = ["C1CC", "c1cccc1", "C(((", "[Xx]"];
  const round = (n: number): void => {
    const smiles = molecules[n % molecules.length]!;
    const calls: Array<() => unknown> = [
      () => painsCheckTool.run({ smiles }, ctx),
      () => brenkCheckTool.run({ smiles }, ctx),
      () => smartsMatchTool.run({ smarts: "[#6]~[#8]", smiles }, ctx),
      () => smartsMatchTool.run({ smarts: "[#6", smiles }, ctx),
      () => smartsMatchTool.run({ smarts: "c", smiles: invalid[n % invalid.length]! }, ctx),
      () => painsCheckTool.run({ smiles: invalid[n % invalid.length]! }, ctx),
      () => findMcsTool.run({ smiles_list: [smiles, molecules[(n + 1) % molecules.length]!], timeout_s: 1 }, ctx),
      () => findMcsTool.run({ smiles_list: [smiles, "CCO", invalid[n % invalid.length]!] }, ctx),
    ];
    for (const c of calls) {
      try {
        c();
      } catch (e) {
        if (!(e instanceof ToolError)) throw e;
      }
    }
  };
  for (let n = 0; n < 200; n++) round(n); // warm-up: query caches, allocator high-water mark
  const before = wasmHeapBytes();
  for (let n = 0; n < 1500; n++) round(n);
  const after = wasmHeapBytes();
  t.diagnostic(`heap ${(before / 2 ** 20).toFixed(1)} -> ${(after / 2 ** 20).toFixed(1)} MiB over 12,000 calls`);
  assert.ok(before > 0, "the heap size was captured");
  // The warm-up reaches the allocator's high-water mark, so without a leak the heap does not move at all;
  // leaking one aspirin-sized MolList per round (the smallest handle here) adds about 3 MiB.
  assert.ok(after - before < 2 ** 20, `heap grew ${((after - before) / 2 ** 20).toFixed(2)} MiB`);
});
