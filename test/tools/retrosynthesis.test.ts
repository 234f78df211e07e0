/**
 * The retrosynthesis tool without the native oracle: errors, ranking and tie order, truncation, modes, and
 * the output schema. Agreement with native RDKit is in test/domain/chem/brics.oracle.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, wasmHeapBytes } from "../../src/domain/chem/rdkit.js";
import { bricsDecompose, findBricsBonds } from "../../src/domain/chem/brics.js";
import { ToolError } from "../../src/domain/errors.js";
import { createAjv } from "../../src/server/registry.js";
import { RETRO_MAX_ATOMS, retrosynthesisTool } from "../../src/tools/retrosynthesis.js";

const rdkit = await loadRDKit();
const validOutput = createAjv().compile(retrosynthesisTool.outputSchema);
const validInput = createAjv().compile(retrosynthesisTool.inputSchema);

interface Out {
  target: string;
  target_sa_score: number;
  disconnections: Array<{
    fragments: string[];
    fragment_sa_scores: number[];
    max_fragment_sa: number;
    bond: { atoms: number[]; labels: number[]; environments: string[]; order: string };
  }>;
  total_brics_bonds: number;
  returned: number;
  truncated: boolean;
  mode: string;
  decomposition?: { fragments: Array<{ smiles: string; sa_score: number }>; fragment_count: number; intermediates_visited: number };
}

function run(args: Record<string, unknown>): Out {
  assert.ok(validInput(args), `input ${JSON.stringify(args)} is valid`);
  const out = retrosynthesisTool.run(args as { smiles: string }, { rdkit, progress: () => {} });
  assert.ok(validOutput(out), JSON.stringify(validOutput.errors));
  return out as unknown as Out;
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolError) return err.code;
    throw err;
  }
  return "none";
}

const IMATINIB = "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1";

test("errors: invalid SMILES, disconnected input, more than 500 atoms", () => {
  assert.equal(
    code(() => run({ smiles: "C1CC(" })),
    "INVALID_SMILES",
  );
  assert.equal(
    code(() => run({ smiles: "CC(=O)Nc1ccc(O)cc1.Cl" })),
    "DISCONNECTED_MOLECULE",
  );
  assert.equal(
    code(() => run({ smiles: "[Na+].[O-]C(=O)c1ccccc1" })),
    "DISCONNECTED_MOLECULE",
  );
  assert.equal(
    code(() => run({ smiles: "C".repeat(RETRO_MAX_ATOMS + 1) })),
    "MOLECULE_TOO_LARGE",
  );
  const big = run({ smiles: "C".repeat(RETRO_MAX_ATOMS) });
  assert.equal(big.total_brics_bonds, 0, "500 atoms are accepted (an alkane has no BRICS bond)");
  let details: Record<string, unknown> = {};
  try {
    run({ smiles: "CC(=O)N".repeat(200) });
  } catch (err) {
    assert.ok(err instanceof ToolError);
    details = err.details;
  }
  assert.equal(details.max_atoms, RETRO_MAX_ATOMS);
});

test("benzene has no BRICS bond; a molecule without one is its own building block", () => {
  const out = run({ smiles: "c1ccccc1", mode: "full" });
  assert.equal(out.total_brics_bonds, 0);
  assert.deepEqual(out.disconnections, []);
  assert.equal(out.truncated, false);
  assert.deepEqual(
    out.decomposition?.fragments.map((f) => f.smiles),
    ["c1ccccc1"],
  );
  assert.equal(out.decomposition?.fragments[0]?.sa_score, out.target_sa_score);
});

test("paracetamol: the amide and the aryl-N cuts with labelled dummies, easiest first", () => {
  const out = run({ smiles: "CC(=O)Nc1ccc(O)cc1" });
  assert.equal(out.target, "CC(=O)Nc1ccc(O)cc1");
  assert.equal(out.total_brics_bonds, 2);
  assert.deepEqual(
    out.disconnections.map((d) => d.fragments),
    [
      ["[1*]C(C)=O", "[5*]Nc1ccc(O)cc1"],
      ["[16*]c1ccc(O)cc1", "[5*]NC(C)=O"],
    ],
  );
  assert.deepEqual(out.disconnections[0]!.bond, { atoms: [1, 3], labels: [1, 5], environments: ["L1", "L5"], order: "single" });
  // sascorer's values for these fragments (dummy atoms count as atoms and as unknown environments).
  assert.deepEqual(out.disconnections[0]!.fragment_sa_scores, [4.027, 2.913]);
  assert.equal(out.disconnections[0]!.max_fragment_sa, 4.027);
  assert.equal(out.mode, "single");
  assert.equal(out.decomposition, undefined, "single mode leaves the decomposition out");
});

test("ranking: max_fragment_sa ascending; equal keys keep RDKit's FindBRICSBonds order", () => {
  for (const smiles of [IMATINIB, "CCCOCCC", "CCOC(=O)c1ccc(OC(=O)CC)cc1", "CNC(=O)c1cc(Oc2ccc(NC(=O)Nc3ccc(Cl)c(C(F)(F)F)c3)cc2)ccn1"]) {
    const out = run({ smiles });
    const order = new Map<string, number>();
    const mol = rdkit.get_mol(smiles)!;
    try {
      findBricsBonds(rdkit, mol).forEach((b, i) => order.set(b.atoms.join(","), i));
    } finally {
      mol.delete();
    }
    for (let i = 1; i < out.disconnections.length; i++) {
      const a = out.disconnections[i - 1]!;
      const b = out.disconnections[i]!;
      assert.ok(a.max_fragment_sa <= b.max_fragment_sa, `${smiles}: sorted at ${i}`);
      if (a.max_fragment_sa === b.max_fragment_sa) {
        assert.ok(order.get(a.bond.atoms.join(","))! < order.get(b.bond.atoms.join(","))!, `${smiles}: tie at ${i} keeps bond order`);
      }
    }
    for (const d of out.disconnections) assert.equal(d.max_fragment_sa, Math.max(...d.fragment_sa_scores));
    assert.equal(out.disconnections.length, order.size, "one disconnection per BRICS bond");
  }
  // A symmetric ether: two bonds, the same fragments, a tie kept in bond order.
  const ether = run({ smiles: "CCCOCCC" });
  assert.deepEqual(
    ether.disconnections.map((d) => d.bond.atoms),
    [
      [3, 2],
      [3, 4],
    ],
  );
  assert.deepEqual(ether.disconnections[0]!.fragments, ether.disconnections[1]!.fragments);
});

test("max_disconnections bounds the list, easiest first, and says so", () => {
  const all = run({ smiles: IMATINIB, max_disconnections: 500 });
  assert.ok(all.total_brics_bonds > 3);
  assert.equal(all.truncated, false);
  assert.equal(all.returned, all.total_brics_bonds);
  const two = run({ smiles: IMATINIB, max_disconnections: 2 });
  assert.equal(two.returned, 2);
  assert.equal(two.truncated, true);
  assert.equal(two.total_brics_bonds, all.total_brics_bonds);
  assert.deepEqual(two.disconnections, all.disconnections.slice(0, 2));
  assert.equal(run({ smiles: IMATINIB }).returned, Math.min(all.total_brics_bonds, 50), "default 50");
  assert.equal(validInput({ smiles: IMATINIB, max_disconnections: 0 }), false);
  assert.equal(validInput({ smiles: IMATINIB, max_disconnections: 501 }), false);
  assert.equal(validInput({ smiles: IMATINIB, mode: "tree" }), false);
});

test("mode full: the BRICS decomposition with an SA score per building block", () => {
  const out = run({ smiles: "CCCOCc1cc(c2ncccc2)ccc1", mode: "full" });
  assert.equal(out.mode, "full");
  assert.deepEqual(
    out.decomposition?.fragments.map((f) => f.smiles),
    ["[14*]c1ccccn1", "[16*]c1cccc([16*])c1", "[3*]O[3*]", "[4*]CCC", "[4*]C[8*]"],
  );
  assert.equal(out.decomposition?.fragment_count, 5);
  assert.ok(out.decomposition.intermediates_visited > 5);
  for (const f of out.decomposition.fragments) assert.ok(f.sa_score >= 1 && f.sa_score <= 10);
  assert.equal(out.total_brics_bonds, 4, "four bonds, five building blocks");
});

test("stereo is kept through a cut, with RDKit's parity (FragmentOnBonds), for either atom order", () => {
  // The same molecule written two ways gives the same cuts.
  const a = run({ smiles: "c1ccccc1[C@H](C)NC" });
  const b = run({ smiles: "c1ccccc1[C@@H](NC)C" });
  assert.deepEqual(
    a.disconnections.map((d) => d.fragments),
    b.disconnections.map((d) => d.fragments),
  );
  assert.ok(a.disconnections.some((d) => d.fragments.includes("[4*][C@@H](C)c1ccccc1")));
  const e = run({ smiles: "C/C=C/C(=O)NCC" });
  assert.ok(
    e.disconnections.some((d) => d.fragments.includes("[1*]C(=O)/C=C/C")),
    "E double bond kept",
  );
  assert.ok(
    e.disconnections.some((d) => d.bond.order === "double" && d.fragments.includes("[7*]=CC")),
    "the L7 C=C cut keeps its double bond",
  );
});

test("the full decomposition stops with TIMEOUT at its deadline or fragment cap, and frees every handle", () => {
  const sugar = "CC(=O)OC[C@H]1O[C@@H](OC(C)=O)[C@H](OC(C)=O)[C@@H](OC(C)=O)[C@@H]1OC(C)=O";
  const mol = rdkit.get_mol(sugar)!;
  try {
    const full = bricsDecompose(rdkit, mol);
    assert.ok(full.nodes > 20);
    const timeout = (options: Parameters<typeof bricsDecompose>[2]): ToolError => {
      try {
        bricsDecompose(rdkit, mol, options);
      } catch (err) {
        assert.ok(err instanceof ToolError);
        return err;
      }
      assert.fail("expected TIMEOUT");
    };
    assert.equal(timeout({ deadline: performance.now() - 1 }).code, "TIMEOUT");
    const capped = timeout({ maxNodes: 10 });
    assert.equal(capped.code, "TIMEOUT");
    assert.equal(capped.details.max_fragments, 10);
    // The WASM heap never shrinks, so growth over repeated runs (after a warm-up) would mean a leak.
    for (let i = 0; i < 5; i++) {
      bricsDecompose(rdkit, mol);
      timeout({ maxNodes: 10 });
    }
    const before = wasmHeapBytes();
    for (let i = 0; i < 40; i++) {
      bricsDecompose(rdkit, mol);
      timeout({ maxNodes: 10 });
      timeout({ deadline: performance.now() - 1 });
      run({ smiles: sugar, mode: "full" });
    }
    assert.equal(wasmHeapBytes(), before, "the WASM heap stays flat");
  } finally {
    mol.delete();
  }
});
