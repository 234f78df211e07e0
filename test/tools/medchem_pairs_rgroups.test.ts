/**
 * rgroup_decompose and matched_pairs behaviour that needs no oracle (the native comparisons are
 * test/domain/chem/rgroup.oracle.test.ts and test/domain/chem/mmpa.oracle.test.ts): a set with known pairs,
 * values and their summary, truncation, caps, bad entries, the SMARTS core, and a heap check (every RDKit
 * handle deleted, on the error paths too).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/domain/errors.js";
import { loadRDKit, wasmHeapBytes } from "../../src/domain/chem/rdkit.js";
import { runMatchedPairs, MMP_MAX_MULTI_CUT } from "../../src/tools/matched_pairs.js";
import { runRgroupDecompose } from "../../src/tools/rgroup_decompose.js";

interface Pair {
  from: number;
  to: number;
  constant: string;
  transformation: string;
  cuts?: number;
  delta?: number;
}
interface PairsOut {
  pairs: Pair[];
  total_pairs: number;
  truncated?: boolean;
  transformations?: Array<{ transformation: string; count: number; mean: number; sd?: number }>;
  transformations_total?: number;
  invalid?: Array<{ index: number; code: string }>;
}

function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ToolError) return e;
    throw e;
  }
  throw new Error("expected a ToolError");
}

// Chloro/fluoro/H analogues on two scaffolds, plus an ethoxy change: the pairs are known by construction.
const SERIES = ["Clc1ccc(cc1)C(=O)N", "Fc1ccc(cc1)C(=O)N", "c1ccc(cc1)C(=O)N", "Clc1ccc(cc1)C(=O)NC", "Fc1ccc(cc1)C(=O)NC", "CCOc1ccc(cc1)C(=O)N"];
const VALUES = [6.0, 6.5, 5.0, 7.0, 7.9, null];

test("matched_pairs: the known pairs of a designed series, with deltas and the per-transformation summary", async () => {
  const rdkit = await loadRDKit();
  const r = runMatchedPairs(rdkit, { smiles_list: SERIES, values: VALUES }) as unknown as PairsOut;
  const byPair = new Map(r.pairs.map((p) => [`${Math.min(p.from, p.to)},${Math.max(p.from, p.to)}`, p]));
  // Cl -> F on both scaffolds, Cl/F -> H, the amide N-methyl, and the ethoxy changes.
  for (const key of ["0,1", "0,2", "1,2", "3,4", "0,3", "1,4", "0,5", "1,5", "2,5"]) assert.ok(byPair.has(key), `pair ${key}`);
  assert.equal(r.total_pairs, r.pairs.length);
  const clF = byPair.get("0,1")!;
  assert.deepEqual(clF, { from: 0, to: 1, constant: "NC(=O)c1ccc([*:1])cc1", transformation: "Cl[*:1]>>F[*:1]", delta: 0.5 });
  const h = byPair.get("0,2")!;
  assert.equal(h.transformation, "Cl[*:1]>>[H][*:1]");
  assert.equal(h.delta, -1);
  // Pairs with molecule 5 have no delta (its value is null).
  assert.equal(byPair.get("0,5")!.delta, undefined);
  const summary = new Map(r.transformations!.map((s) => [s.transformation, s]));
  const clToF = summary.get("Cl[*:1]>>F[*:1]")!;
  assert.equal(clToF.count, 2);
  assert.equal(clToF.mean, 0.7); // (0.5 + 0.9) / 2
  assert.equal(clToF.sd, Math.round(Math.sqrt(((0.5 - 0.7) ** 2 + (0.9 - 0.7) ** 2) / 1) * 1e6) / 1e6);
  assert.equal(summary.get("Cl[*:1]>>[H][*:1]")!.sd, undefined, "no sd for a count of 1");
  assert.equal(r.transformations![0]!.count >= r.transformations![r.transformations!.length - 1]!.count, true, "most frequent first");
});

test("matched_pairs: max_pairs truncates, bad entries are listed, values must match, multi-cut cap", async () => {
  const rdkit = await loadRDKit();
  const r = runMatchedPairs(rdkit, { smiles_list: [...SERIES, "not a smiles"], max_pairs: 2 }) as unknown as PairsOut;
  assert.equal(r.pairs.length, 2);
  assert.equal(r.truncated, true);
  assert.ok(r.total_pairs > 2);
  assert.deepEqual(
    r.invalid!.map((e) => [e.index, e.code]),
    [[6, "INVALID_SMILES"]],
  );
  assert.equal(r.transformations, undefined, "no summary without values");
  assert.equal(errorOf(() => runMatchedPairs(rdkit, { smiles_list: SERIES, values: [1, 2] })).code, "INVALID_ARGUMENTS");
  const many = Array.from({ length: MMP_MAX_MULTI_CUT + 1 }, (_, i) => `C${"C".repeat(i % 5)}O`);
  assert.equal(errorOf(() => runMatchedPairs(rdkit, { smiles_list: many, max_cuts: 2 })).code, "INVALID_ARGUMENTS");
  // A linker change needs two cuts.
  const linker = ["c1ccccc1CCNc1ccncc1", "c1ccccc1CCCNc1ccncc1"];
  const one = runMatchedPairs(rdkit, { smiles_list: linker }) as unknown as PairsOut;
  const two = runMatchedPairs(rdkit, { smiles_list: linker, max_cuts: 2 }) as unknown as PairsOut;
  assert.ok(two.pairs.some((p) => p.cuts === 2) || two.pairs.length >= one.pairs.length);
  assert.ok(two.pairs.length >= 1);
});

test("rgroup_decompose: rows, shared core, unmatched, invalid entries, SMARTS core, bad core", async () => {
  const rdkit = await loadRDKit();
  const r = runRgroupDecompose(rdkit, { core: "c1ccncc1", smiles_list: ["Cc1ccncc1", "Clc1cccnc1", "CCO", "bad(", "c1ccncc1N"] });
  assert.equal(r.core_read_as, "smiles");
  assert.deepEqual(r.unmatched, [2]);
  assert.deepEqual(
    (r.invalid as Array<{ index: number }>).map((e) => e.index),
    [3],
  );
  const rows = r.rows as Array<Record<string, string | number>>;
  assert.deepEqual(
    rows.map((row) => row.index),
    [0, 1, 4],
  );
  assert.equal(typeof r.core, "string", "one shared core");
  assert.ok(
    rows.every((row) => !("Core" in row)),
    "the shared core is not repeated per row",
  );
  // [#6] is SMARTS-only in intent: read as SMARTS, so the pyridines match.
  const q = runRgroupDecompose(rdkit, { core: "[#6]1:[#6]:[#7]:[#6]:[#6]:[#6]:1[*:1]", smiles_list: ["Cc1ccncc1", "Clc1cccnc1"] });
  assert.equal(q.core_read_as, "smarts");
  assert.equal((q.rows as unknown[]).length, 2);
  assert.equal(errorOf(() => runRgroupDecompose(rdkit, { core: "C1CC(", smiles_list: ["CCO"] })).code, "INVALID_SMARTS");
});

test("rgroup_decompose and matched_pairs free every RDKit handle (valid and error paths)", async (t) => {
  const rdkit = await loadRDKit();
  const round = () => {
    runRgroupDecompose(rdkit, { core: "c1ccccc1[*:1]", smiles_list: ["Clc1ccccc1", "CCO", "bad("] });
    runMatchedPairs(rdkit, { smiles_list: SERIES, values: VALUES, max_cuts: 2 });
    errorOf(() => runRgroupDecompose(rdkit, { core: "C1CC(", smiles_list: ["CCO"] }));
  };
  for (let n = 0; n < 10; n++) round();
  const before = wasmHeapBytes();
  for (let n = 0; n < 60; n++) round();
  const after = wasmHeapBytes();
  t.diagnostic(`heap ${(before / 2 ** 20).toFixed(1)} -> ${(after / 2 ** 20).toFixed(1)} MiB over 60 rounds`);
  assert.ok(before > 0);
  assert.ok(after - before < 2 ** 20, `heap grew ${((after - before) / 2 ** 20).toFixed(2)} MiB`);
});
