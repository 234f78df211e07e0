import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { druglikenessFiltersTool } from "../../src/tools/druglikeness_filters.js";
import { DRUG_RULES, meets } from "../../src/domain/chem/druglikeness.js";

const ctx = async () => ({ rdkit: await loadRDKit(), progress: () => {} });

test("druglikeness_filters: aspirin passes lipinski, veber, egan and ghose, fails muegge (MW < 200) and ro3 (TPSA > 60); each rule names its values, thresholds and citation", async () => {
  const r = druglikenessFiltersTool.run({ smiles: "CC(=O)Oc1ccccc1C(=O)O" }, await ctx());
  assert.deepEqual(r.passed, ["lipinski", "veber", "egan", "ghose"]);
  assert.deepEqual(r.failed, ["muegge", "ro3"]);
  assert.equal(r.rules.lipinski.pass, true);
  assert.deepEqual(r.rules.lipinski.values, { mw: 180.16, logp: 1.31, hbd: 1, hba: 4 });
  assert.deepEqual(r.rules.lipinski.thresholds, { mw: "<= 500", logp: "<= 5", hbd: "<= 5", hba: "<= 10" });
  // Ghose: 21 atoms with H (in 20..70), MR 44.71 in 40..130, MW 180.16 in 160..480.
  assert.equal(r.rules.ghose.values.atoms, 21);
  assert.equal(r.rules.ghose.pass, true);
  // Muegge: MW 180 is below 200.
  assert.deepEqual(r.rules.muegge.failed, ["mw"]);
  // ro3: TPSA 63.6 > 60 (MW 180 < 300, logP 1.3, HBD 1, HBA 3, rotb 2).
  assert.deepEqual(r.rules.ro3.failed, ["tpsa"]);
  assert.equal(r.rules.ro3.thresholds.mw, "< 300");
  assert.match(r.rules.veber.citation, /Veber et al\., J\. Med\. Chem\. 2002/);
  assert.equal(r.rules.veber.failed, undefined, "no failed key when every criterion is met");
});

test("druglikeness_filters: bounds are inclusive unless published strict (ro3 MW < 300, Muegge carbons > 4, heteroatoms > 1)", () => {
  const ro3 = DRUG_RULES.find((r) => r.key === "ro3")!;
  const mw = ro3.criteria.find((c) => c.property === "mw")!;
  assert.equal(meets(mw, 299.99), true);
  assert.equal(meets(mw, 300), false);
  const muegge = DRUG_RULES.find((r) => r.key === "muegge")!;
  assert.equal(
    meets(
      muegge.criteria.find((c) => c.property === "carbons")!,
      4,
    ),
    false,
  );
  assert.equal(
    meets(
      muegge.criteria.find((c) => c.property === "carbons")!,
      5,
    ),
    true,
  );
  assert.equal(
    meets(
      muegge.criteria.find((c) => c.property === "heteroatoms")!,
      2,
    ),
    true,
  );
  const ghose = DRUG_RULES.find((r) => r.key === "ghose")!;
  assert.equal(
    meets(
      ghose.criteria.find((c) => c.property === "logp")!,
      -0.4,
    ),
    true,
  );
  assert.equal(
    meets(
      ghose.criteria.find((c) => c.property === "atoms")!,
      71,
    ),
    false,
  );
});
