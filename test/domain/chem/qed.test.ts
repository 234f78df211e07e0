/**
 * QED and calc_properties on named molecules. Expected values are native RDKit 2022.09.3
 * (rdkit.Chem.QED, rdMolDescriptors.CalcMolFormula) and the doctests in RDKit's QED.py.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { assetPath, projectRoot } from "../../../src/domain/assets.js";
import { loadRDKit, withMol } from "../../../src/domain/chem/rdkit.js";
import type { RDKit } from "../../../src/domain/chem/rdkit.js";
import { ads, ADS_PARAMETERS, computeQed, WEIGHT_MEAN } from "../../../src/domain/chem/qed.js";
import type { QedProperties } from "../../../src/domain/chem/qed.js";
import { computeProperties, rawProperties } from "../../../src/domain/chem/properties.js";
import { descriptorsOf } from "../../../src/domain/chem/rdkit.js";

const rdkit: RDKit = await loadRDKit();

function qedOf(smiles: string): { qed: number; properties: QedProperties } {
  return withMol(rdkit, smiles, (mol) => computeQed(rdkit, mol, descriptorsOf(mol)));
}

test("assetPath finds the QED parameters from the compiled module", () => {
  assert.ok(existsSync(assetPath("qed-parameters.json")));
  assert.ok(existsSync(`${projectRoot()}/package.json`));
  assert.throws(() => assetPath("no-such-asset.json"), /not found/);
  assert.equal(WEIGHT_MEAN.MW, 0.66);
  assert.equal(ADS_PARAMETERS.ALERTS.C, -0.09002883);
  // ads() is scaled so that its maximum is about 1.
  assert.ok(Math.abs(ads(300, ADS_PARAMETERS.MW) - 1) < 0.02);
});

// [name, SMILES, native QED, native QED.properties (MW, ALOGP, PSA rounded)]
const NAMED: Array<[string, string, number, QedProperties]> = [
  ["aspirin", "CC(=O)Oc1ccccc1C(=O)O", 0.5501217966938848, { MW: 180.159, ALOGP: 1.3101, HBA: 4, HBD: 1, PSA: 63.6, ROTB: 2, AROM: 1, ALERTS: 2 }],
  ["caffeine", "CN1C=NC2=C1C(=O)N(C(=O)N2C)C", 0.5384628262372215, { MW: 194.194, ALOGP: -1.0293, HBA: 3, HBD: 0, PSA: 61.82, ROTB: 0, AROM: 2, ALERTS: 0 }],
  ["ibuprofen", "CC(C)Cc1ccc(cc1)C(C)C(=O)O", 0.8215995486924976, { MW: 206.285, ALOGP: 3.0732, HBA: 2, HBD: 1, PSA: 37.3, ROTB: 4, AROM: 1, ALERTS: 0 }],
  // AROM when DeleteSubstructs removes nothing: RDKit keeps the symmetrised ring count (6, not 5).
  ["triptycene", "c1ccc2c(c1)C1c3ccccc3C2c2ccccc12", 0.3692077070091081, { MW: 254.332, ALOGP: 4.6738, HBA: 0, HBD: 0, PSA: 0, ROTB: 0, AROM: 6, ALERTS: 0 }],
  // ...and when it removes atoms (the cyclohexyl), the SSSR of the rest: the cyclomatic number, 5.
  [
    "cyclohexyltriptycene",
    "c1ccc2c(c1)C1c3ccccc3C2c2ccc(C3CCCCC3)cc12",
    0.31853235985988,
    { MW: 336.478, ALOGP: 6.7215, HBA: 0, HBD: 0, PSA: 0, ROTB: 1, AROM: 5, ALERTS: 0 },
  ],
  [
    "C60",
    "c12c3c4c5c1c1c6c7c2c2c8c3c3c9c4c4c%10c5c5c1c1c6c6c%11c7c2c2c7c8c3c3c8c9c4c4c9c%10c5c5c1c1c6c6c%11c2c2c7c3c3c8c4c4c9c5c1c1c6c2c3c41",
    0.13688149613553013,
    { MW: 720.66, ALOGP: 17.73, HBA: 0, HBD: 0, PSA: 0, ROTB: 0, AROM: 32, ALERTS: 1 },
  ],
];

for (const [name, smiles, qed, props] of NAMED) {
  test(`QED of ${name} equals native RDKit`, () => {
    const got = qedOf(smiles);
    assert.ok(Math.abs(got.qed - qed) < 1e-9, `qed ${got.qed} vs ${qed}`);
    const rounded = {
      ...got.properties,
      MW: Number(got.properties.MW.toFixed(3)),
      ALOGP: Number(got.properties.ALOGP.toFixed(4)),
      PSA: Number(got.properties.PSA.toFixed(2)),
    };
    assert.deepEqual(rounded, props);
  });
}

test("QED.py doctest values (Bickerton et al. examples)", () => {
  // The doctest prints 0.253..., 0.234..., 0.234...: the value starts with those digits.
  const cases: Array<[string, number]> = [
    ["N=C(CCSCc1csc(N=C(N)N)n1)NS(N)(=O)=O", 0.253],
    ["CNC(=NCCSCc1nc[nH]c1C)NC#N", 0.234],
    ["CCCCCNC(=N)NN=Cc1c[nH]c2ccc(CO)cc12", 0.234],
  ];
  for (const [smiles, prefix] of cases) {
    const { qed } = qedOf(smiles);
    assert.ok(qed >= prefix && qed < prefix + 0.001, `${smiles}: ${qed} does not start with ${prefix}`);
  }
});

test("computeProperties payload for aspirin", () => {
  const payload = withMol(rdkit, "CC(=O)Oc1ccccc1C(=O)O", (mol) => computeProperties(rdkit, mol));
  assert.deepEqual(payload, {
    mw: 180.159,
    exact_mass: 180.0423,
    logp: 1.31,
    tpsa: 63.6,
    hbd: 1,
    hba: 3,
    rotatable_bonds: 2,
    heavy_atom_count: 13,
    formula: "C9H8O4",
    qed: 0.55,
    qed_properties: { MW: 180.159, ALOGP: 1.31, HBA: 4, HBD: 1, PSA: 63.6, ROTB: 2, AROM: 1, ALERTS: 2 },
  });
});

test("formula follows RDKit's CalcMolFormula (charges, isotopes, H order, dummies)", () => {
  // Native RDKit 2022.09.3 CalcMolFormula with default arguments.
  const cases: Array<[string, string]> = [
    ["CC(=O)Oc1ccccc1C(=O)[O-]", "C9H7O4-"],
    ["[2H]C([2H])Cl.[NH4+]", "CH7ClN+"],
    ["[13CH3]O", "CH4O"],
    ["C[13CH3]", "C2H6"],
    ["[2H]O[2H]", "H2O"],
    ["[NH4+].[NH4+]", "H8N2+2"],
    ["[O-2]", "O-2"],
    ["[Fe+3]", "Fe+3"],
    ["[Cl-].[Cl-].[Cl-]", "Cl3-3"],
    ["[Cl-].[BH4-]", "H4BCl-2"],
    ["[Na+].[Cl-]", "ClNa"],
    ["[H][H]", "H2"],
    ["ClBr", "BrCl"],
    ["[SiH4]", "H4Si"],
    ["[AlH3]", "H3Al"],
    ["*C", "CH3*"],
    ["*N", "H2*N"],
    ["*CCl", "CH2*Cl"],
    ["*[Zr]", "*Zr"],
    ["[Co].[Ca]", "CaCo"],
  ];
  for (const [smiles, formula] of cases) {
    assert.equal(
      withMol(rdkit, smiles, (mol) => rawProperties(rdkit, mol).formula),
      formula,
      smiles,
    );
  }
});
