/**
 * find_mcs end to end: on 20 large, dissimilar molecules RDKit's FMCS cannot finish within timeout_s, so the
 * answer is timed_out: true with the best MCS found so far, within the timeout plus a margin; meanwhile the
 * server (two workers) keeps answering other calls. Also the MOLECULE_TOO_LARGE cap over the wire.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ServerProcess } from "../helpers/server-process.js";
import { MCS_MAX_ATOMS } from "../../src/tools/find_mcs.js";
import { loadRDKit, parseSmiles } from "../../src/domain/chem/rdkit.js";

/** Side chains: the 20 proteinogenic amino acids (glycine as [H]) and 11 non-natural ones, for diversity. */
const SIDE_CHAINS = [
  "[H]",
  "C",
  "C(C)C",
  "CC(C)C",
  "C(C)CC",
  "Cc1ccccc1",
  "CO",
  "C(C)O",
  "Cc1ccc(O)cc1",
  "Cc1c[nH]c2ccccc12",
  "CCCCN",
  "CCC(=O)O",
  "CC(=O)O",
  "CC(N)=O",
  "CCC(N)=O",
  "CCSC",
  "CCCNC(N)=N",
  "Cc1c[nH]cn1",
  "CS",
  "CCCC",
  "CC1CCCCC1",
  "Cc1ccncc1",
  "CC(F)(F)F",
  "Cc1ccc(Cl)cc1",
  "CCOC",
  "Cc1cccs1",
  "CC#N",
  "Cc1ccc2ccccc2c1",
  "CCS(C)(=O)=O",
  "CC1CC1",
];

/**
 * 20 different linear peptides of 10 to 14 residues (88 to 137 heavy atoms), some amides N-methylated,
 * from a fixed-seed generator. FMCS cannot settle their common backbone quickly.
 */
function peptides(): string[] {
  let seed = 20240601;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  return Array.from({ length: 20 }, (_, i) => {
    const residues = 10 + (i % 5);
    let smiles = "N";
    for (let r = 0; r < residues; r++) {
      const side = SIDE_CHAINS[Math.floor(next() * SIDE_CHAINS.length)]!;
      smiles += `C(${side})C(=O)${r < residues - 1 ? (next() < 0.3 ? "N(C)" : "N") : "O"}`;
    }
    return smiles;
  });
}

type Structured = Record<string, unknown>;

/** Heavy-atom counts and the median pairwise ECFP4 (Morgan r2, 2048 bits) Tanimoto similarity of a list. */
async function describe(list: string[]): Promise<{ atoms: number[]; median: number }> {
  const rdkit = await loadRDKit();
  const atoms: number[] = [];
  const fps = list.map((smiles) => {
    const mol = parseSmiles(rdkit, smiles);
    try {
      atoms.push(mol.get_num_atoms());
      return mol.get_morgan_fp_as_uint8array(JSON.stringify({ radius: 2, nBits: 2048 })) as Uint8Array;
    } finally {
      mol.delete();
    }
  });
  const bits = (x: number): number => (x === 0 ? 0 : (x & 1) + bits(x >> 1));
  const sims: number[] = [];
  for (let i = 0; i < fps.length; i++) {
    for (let j = i + 1; j < fps.length; j++) {
      let and = 0;
      let or = 0;
      fps[i]!.forEach((a, k) => {
        and += bits(a & fps[j]![k]!);
        or += bits(a | fps[j]![k]!);
      });
      sims.push(and / or);
    }
  }
  sims.sort((a, b) => a - b);
  return { atoms, median: sims[sims.length >> 1]! };
}

test("find_mcs on 20 large dissimilar molecules answers timed_out within its timeout while the server keeps serving", async (t) => {
  const s = new ServerProcess({ CHEMATIC_WORKERS: "2" });
  try {
    // Warm-up: two concurrent calls, so the second worker has had time to load RDKit before the test starts.
    await Promise.all([s.modernCall("w1", "parse_smiles", { smiles: "C" }), s.modernCall("w2", "parse_smiles", { smiles: "CC" })]);
    const list = peptides();
    const { atoms, median } = await describe(list);
    t.diagnostic(`20 peptides of ${Math.min(...atoms)} to ${Math.max(...atoms)} heavy atoms; median pairwise ECFP4 Tanimoto ${median.toFixed(2)}`);
    assert.ok(Math.min(...atoms) >= 70, "large molecules");
    assert.ok(median < 0.4, "dissimilar molecules");
    const timeoutS = 3;
    const started = Date.now();
    let mcsAnsweredAt = 0;
    const mcs = s.modernCall(1, "find_mcs", { smiles_list: list, timeout_s: timeoutS }).then((m) => {
      mcsAnsweredAt = Date.now();
      return m;
    });
    // While FMCS runs on one worker, the other answers ordinary calls. No pause before them: both workers are idle,
    // so FMCS takes one whichever call reaches the pool first, and these are served by the other meanwhile.
    const answeredMeanwhile: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.modernCall(10 + i, "parse_smiles", { smiles: "c1ccccc1O" });
      assert.equal((r.result!.structuredContent as Structured).atoms, 7);
      if (mcsAnsweredAt === 0) answeredMeanwhile.push(Date.now() - started);
    }
    const res = await mcs;
    const elapsed = mcsAnsweredAt - started;
    const out = res.result!.structuredContent as Structured;
    t.diagnostic(
      `timed_out ${String(out.timed_out)} after ${elapsed} ms (timeout ${timeoutS} s); MCS ${String(out.atom_count)} atoms ${String(out.mcs)}; other calls answered at ${answeredMeanwhile.join(", ")} ms`,
    );
    assert.notEqual(res.result!.isError, true, JSON.stringify(out));
    assert.equal(out.timed_out, true);
    assert.equal(out.molecule_count, 20);
    assert.ok((out.atom_count as number) > 0 && typeof out.mcs === "string", "the best MCS found so far is returned");
    assert.match(String(out.note), /timeout/);
    // Margin: RDKit's set-up and wind-down outside its timer (measured about 0.5 s here), worker hand-off and
    // a loaded machine.
    assert.ok(elapsed < timeoutS * 1000 + 5000, `answered after ${elapsed} ms`);
    assert.ok(elapsed >= timeoutS * 1000, "RDKit's timeout, not an early exit");
    assert.equal(answeredMeanwhile.length, 3, "three calls were answered while find_mcs was running");
  } finally {
    await s.close();
  }
});

test("find_mcs refuses a molecule over its atom cap with MOLECULE_TOO_LARGE, naming the list item", async () => {
  const s = new ServerProcess({ CHEMATIC_WORKERS: "1" });
  try {
    const big = `C${"C(C)".repeat(MCS_MAX_ATOMS / 2)}`; // MCS_MAX_ATOMS + 1 heavy atoms
    const r = await s.modernCall(1, "find_mcs", { smiles_list: ["CCO", big] });
    assert.equal(r.result!.isError, true);
    const err = (r.result!.structuredContent as { error: { code: string; details: Structured } }).error;
    assert.equal(err.code, "MOLECULE_TOO_LARGE");
    assert.equal(err.details.argument, "smiles_list[1]");
    assert.equal(err.details.max_atoms, MCS_MAX_ATOMS);
    const one = await s.modernCall(2, "find_mcs", { smiles_list: ["CCO"] });
    assert.equal(one.result!.isError, true);
    assert.equal((one.result!.structuredContent as { error: { code: string } }).error.code, "INVALID_ARGUMENTS");
  } finally {
    await s.close();
  }
});
