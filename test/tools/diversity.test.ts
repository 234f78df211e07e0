/**
 * cluster_molecules and pick_diverse without the oracle: typed errors with hints for arguments that cannot be
 * answered, invalid entries left out and listed, and the thresholds' edges (0: only identical fingerprints are
 * neighbours; 1: every pair is).
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import { ToolError } from "../../src/domain/errors.js";
import { clusterMoleculesTool } from "../../src/tools/cluster_molecules.js";
import { pickDiverseTool } from "../../src/tools/pick_diverse.js";

let rdkit: RDKit;
const ctx = () => ({ rdkit, progress: () => {} });
const LIST = ["c1ccccc1O", "c1ccccc1N", "not a smiles", "CCO", "c1ccccc1O", "CCCCCCCC"];

before(async () => {
  rdkit = await loadRDKit();
});

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ToolError, String(e));
    assert.ok(e.hint.length > 10);
    return e.code;
  }
  assert.fail("expected a ToolError");
}

test("cluster_molecules leaves out and lists an unparsable entry; threshold 0 joins only identical fingerprints, 1 joins all", () => {
  const zero = clusterMoleculesTool.run({ smiles_list: LIST, threshold: 0 }, ctx());
  assert.deepEqual(
    zero.invalid?.map((e) => [e.index, e.code]),
    [[2, "INVALID_SMILES"]],
  );
  assert.equal(zero.clustered, 5);
  assert.deepEqual(zero.clusters[0], { centroid: 4, members: [4, 0] });
  const one = clusterMoleculesTool.run({ smiles_list: LIST, threshold: 1 }, ctx());
  assert.deepEqual(one.clusters, [{ centroid: 5, members: [5, 0, 1, 3, 4] }]);
});

test("pick_diverse: typed errors for first_picks past the list or naming an invalid entry, n past the valid entries, seed with first picks, [] without seed", () => {
  assert.equal(
    code(() => pickDiverseTool.run({ smiles_list: LIST, n: 2, first_picks: [9] }, ctx())),
    "INVALID_ARGUMENTS",
  );
  assert.equal(
    code(() => pickDiverseTool.run({ smiles_list: LIST, n: 2, first_picks: [2] }, ctx())),
    "INVALID_SMILES",
  );
  assert.equal(
    code(() => pickDiverseTool.run({ smiles_list: LIST, n: 6 }, ctx())),
    "INVALID_ARGUMENTS",
  );
  assert.equal(
    code(() => pickDiverseTool.run({ smiles_list: LIST, n: 2, first_picks: [0], seed: 1 }, ctx())),
    "INVALID_ARGUMENTS",
  );
  assert.equal(
    code(() => pickDiverseTool.run({ smiles_list: LIST, n: 2, first_picks: [] }, ctx())),
    "INVALID_ARGUMENTS",
  );
  const picked = pickDiverseTool.run({ smiles_list: LIST, n: 5 }, ctx());
  assert.equal(picked.picks.length, 5);
  assert.ok(!picked.picks.includes(2));
  assert.equal(picked.picks[0], 0);
  // The duplicate of the first pick comes last: its distance to the picks is 0.
  assert.equal(picked.picks[4], 4);
  assert.equal(picked.min_distance, 0);
});
