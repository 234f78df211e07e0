/**
 * Shared by the admet_profile and boiled_egg golden-value tests: the molecule set and the native RDKit
 * oracle (scripts/oracle-admet.py, Debian python3-rdkit, in the shared oracle process). Only native descriptors and substructure hits
 * come from here; each test applies the published formulas itself.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { nativeRDKitMissing, oracleLines } from "./oracle.js";

const SMI_FILE = "/usr/share/RDKit/Data/NCI/first_5K.smi";

/** Named drugs of the issue plus molecules chosen to exercise every S/P term, toxicophore and ionizable group. */
export const NAMED: ReadonlyArray<readonly [string, string]> = [
  ["aspirin", "CC(=O)Oc1ccccc1C(=O)O"],
  ["caffeine", "Cn1cnc2c1c(=O)n(C)c(=O)n2C"],
  ["ibuprofen", "CC(C)Cc1ccc(cc1)C(C)C(=O)O"],
  ["paracetamol", "CC(=O)Nc1ccc(O)cc1"],
  ["verapamil", "COc1ccc(CCN(C)CCCC(C#N)(C(C)C)c2ccc(OC)c(OC)c2)cc1OC"],
  [
    "erythromycin",
    "CC[C@@H]1[C@@]([C@@H]([C@H](C(=O)[C@@H](C[C@@]([C@@H]([C@H]([C@@H]([C@H](C(=O)O1)C)O[C@H]2C[C@@]([C@H]([C@@H](O2)C)O)(C)OC)C)O[C@H]3[C@@H]([C@H](C[C@H](O3)C)N(C)C)O)(C)O)C)C)O)(C)O",
  ],
  ["diazepam", "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21"],
  ["butylphenylthiourea", "CCCCNC(=S)Nc1ccccc1"],
  ["sulfamethoxazole", "Cc1cc(NS(=O)(=O)c2ccc(N)cc2)no1"],
  ["dmso", "CS(C)=O"],
  ["3-methylthiophene-2-carboxylic acid", "Cc1ccsc1C(=O)O"],
  ["ethanethiol", "CCS"],
  ["triphenylphosphine", "c1ccc(cc1)P(c1ccccc1)c1ccccc1"],
  ["phosphonoacetic acid", "OC(=O)CP(=O)(O)O"],
  ["cyclophosphamide", "ClCCN(CCCl)P1(=O)NCCCO1"],
  ["nitrobenzene", "O=[N+]([O-])c1ccccc1"],
  ["styrene oxide", "C1OC1c1ccccc1"],
  ["N-nitrosodimethylamine", "CN(C)N=O"],
  ["phenylhydrazine", "NNc1ccccc1"],
  ["azobenzene", "c1ccc(cc1)N=Nc1ccccc1"],
  ["anthracene", "c1ccc2cc3ccccc3cc2c1"],
  ["phenanthrene", "c1ccc2c(c1)ccc1ccccc12"],
  ["losartan", "CCCCc1nc(Cl)c(CO)n1Cc1ccc(cc1)-c1ccccc1-c1nn[nH]n1"],
  ["clonidine", "Clc1cccc(Cl)c1NC1=NCCN1"],
  ["cetirizine", "OC(=O)COCCN1CCN(CC1)C(c1ccccc1)c1ccc(Cl)cc1"],
  ["methylammonium", "C[NH3+]"],
  ["metformin", "CN(C)C(=N)NC(=N)N"],
  ["sumatriptan", "CNS(=O)(=O)Cc1ccc2[nH]cc(CCN(C)C)c2c1"],
  ["acetyl chloride", "CC(=O)Cl"],
  ["ethyl nitrite", "CCON=O"],
  ["acetylcholine", "C[N+](C)(C)CCOC(C)=O"],
  ["betaine", "C[N+](C)(C)CC(=O)[O-]"],
  ["N-methylpyridinium", "C[n+]1ccccc1"],
  ["methyltriphenylphosphonium", "C[P+](c1ccccc1)(c1ccccc1)c1ccccc1"],
  ["trimethylsulfonium", "C[S+](C)C"],
  ["cyclosporin-like large peptide", "CC(C)CC1NC(=O)C(C(C)C)N(C)C(=O)C(C)NC(=O)C(CC(C)C)N(C)C(=O)CN(C)C(=O)C(CC(C)C)N(C)C1=O"],
];

export interface AdmetOracleRow {
  smiles: string;
  error?: string;
  logp: number;
  tpsa: number;
  tpsa_sp: number;
  mw: number;
  rotatable_bonds: number;
  aromatic_atoms: number;
  heavy_atoms: number;
  hbd: number;
  hits: Record<string, boolean>;
}

export async function oracleSkipReason(): Promise<string | undefined> {
  if (!existsSync(SMI_FILE)) return `${SMI_FILE} is absent (Debian package rdkit-data provides it)`;
  return nativeRDKitMissing();
}

/** The first `limit` SMILES of first_5K.smi followed by the named molecules. */
export function moleculeSet(limit: number): string[] {
  const nci = readFileSync(SMI_FILE, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .slice(0, limit)
    .map((l) => l.trim().split(/\s+/)[0]!);
  return [...nci, ...NAMED.map(([, smi]) => smi)];
}

/** scripts/oracle-admet.py in the shared native RDKit process (test/helpers/oracle.ts). */
export async function runAdmetOracle(smiles: readonly string[]): Promise<AdmetOracleRow[]> {
  const rows = await oracleLines<AdmetOracleRow>({ script: "oracle-admet.py" }, { input: smiles.join("\n") + "\n", timeoutMs: 300_000 });
  assert.equal(rows.length, smiles.length, "one oracle line per SMILES");
  rows.forEach((row, i) => assert.equal(row.smiles, smiles[i], `oracle line ${i} answers another SMILES`));
  return rows;
}

/** Rounds half away from zero at `digits` decimals, as Math.round does for the positive side. */
export function roundTo(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * Rounded values agree when equal, or one unit of the last decimal apart with the unrounded native value
 * within 1e-9 of a rounding boundary (two RDKit builds summing the same contributions in another order).
 */
export function roundedAgree(ours: number, nativeRaw: number, digits: number): boolean {
  const expected = roundTo(nativeRaw, digits);
  if (ours === expected) return true;
  const unit = 10 ** -digits;
  const scaled = nativeRaw / unit;
  const nearBoundary = Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-9 / unit;
  return nearBoundary && Math.abs(ours - expected) <= unit * 1.000001;
}
