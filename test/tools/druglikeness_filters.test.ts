import { test } from "node:test";
import assert from "node:assert/strict";
import { loadRDKit } from "../../src/domain/chem/rdkit.js";
import { existsSync, readFileSync } from "node:fs";
import { druglikenessFiltersTool } from "../../src/tools/druglikeness_filters.js";
import { lipinskiCheckTool } from "../../src/tools/lipinski_check.js";
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

test("Lipinski's rule of five passes at most one violation (Lipinski et al. 1997: poor absorption when two parameters are out of range), as lipinski_check's passes_ro5", async () => {
  const c = await ctx();
  // Stearic acid: logP 6.3 and nothing else out of range.
  const stearic = druglikenessFiltersTool.run({ smiles: "CCCCCCCCCCCCCCCCCC(=O)O" }, c);
  assert.equal(stearic.rules.lipinski.pass, true);
  assert.equal(stearic.rules.lipinski.violations, 1);
  assert.equal(stearic.rules.lipinski.max_violations, 1);
  assert.deepEqual(stearic.rules.lipinski.failed, ["logp"]);
  assert.ok(stearic.passed.includes("lipinski"));
  assert.equal(lipinskiCheckTool.run({ smiles: "CCCCCCCCCCCCCCCCCC(=O)O" }, c).passes_ro5, true);
  // Two out of range (MW 635, logP 16.1): not passed.
  const waxy = druglikenessFiltersTool.run({ smiles: "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(=O)O" }, c);
  assert.equal(waxy.rules.lipinski.pass, false);
  assert.equal(waxy.rules.lipinski.violations, 2);
  assert.ok(waxy.failed.includes("lipinski"));
  // The other rule sets still allow none.
  assert.equal(stearic.rules.egan.max_violations, undefined);
  assert.equal(stearic.rules.egan.pass, stearic.rules.egan.violations === 0);
});

test("druglikeness_filters' Lipinski verdict equals lipinski_check's passes_ro5 on every molecule of RDKit's NCI set", async (t) => {
  const nci = "/usr/share/RDKit/Data/NCI/first_5K.smi";
  if (!existsSync(nci)) {
    if (process.env.CHEMATIC_REQUIRE_ORACLES === "1") assert.fail(`${nci} is absent`);
    return t.skip(`${nci} is absent (RDKit's data files)`);
  }
  const c = await ctx();
  const smiles = readFileSync(nci, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, 1500)
    .map((l) => l.split(/\s+/)[0]!);
  let compared = 0;
  let oneViolation = 0;
  for (const s of smiles) {
    let filters: ReturnType<typeof druglikenessFiltersTool.run>;
    let check: ReturnType<typeof lipinskiCheckTool.run>;
    try {
      filters = druglikenessFiltersTool.run({ smiles: s }, c);
      check = lipinskiCheckTool.run({ smiles: s }, c);
    } catch {
      continue;
    }
    compared++;
    if (filters.rules.lipinski.violations === 1) oneViolation++;
    assert.equal(filters.rules.lipinski.pass, check.passes_ro5, s);
    assert.equal(filters.rules.lipinski.violations, check.violations, s);
  }
  assert.ok(compared > 1400 && oneViolation > 10, `${compared} compared, ${oneViolation} with one violation`);
});
