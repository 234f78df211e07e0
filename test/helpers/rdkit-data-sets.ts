/**
 * Molecules from RDKit's own data files for the oracle tests of issue 16's tools (druglikeness_filters,
 * enumerate_reaction, enumerate_stereoisomers): a sample of NCI first_5K, of the WEHI PAINS test set, the
 * ChEMBL_11265 actives of Contrib/fraggle and the benzodiazepines of Projects/DbCLI, plus hand-picked
 * molecules with stereo, charges, salts, metals and macrocycles. Files that are absent are left out (the
 * test's skip reason names the NCI file, the one that is required).
 */
import { existsSync, readFileSync } from "node:fs";
import { withMol, type RDKit } from "../../src/domain/chem/rdkit.js";
import { molGraph } from "../../src/domain/chem/graph.js";

const RDKIT_DATA = "/usr/share/RDKit";
export const NCI_FILE = `${RDKIT_DATA}/Data/NCI/first_5K.smi`;

export const SPECIAL_CASES = [
  "C[C@H](N)C(=O)O",
  "C/C=C/C(=O)O",
  "CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)[O-].[Na+]",
  "[NH3+]CC(=O)[O-]",
  "Cl[Pt](Cl)([NH3])[NH3]",
  "C1CCCCCCCCCCC(=O)NCCCCCCCCCC1",
  "CC1(C)C(=O)N2[C@@H](C(=O)O)C(C)(C)S[C@@H]12",
  "CC(C)[C@@H]1CC[C@@H](C)C[C@H]1O",
  "OC1CCC(O)CC1",
  "CC(O)C(O)C(O)C",
  "C/C=C/C=C/C",
  "CC=CC(O)C",
  "OC(=O)C(O)C(O)C(=O)O",
  "C[N+](C)(C)CCOC(=O)C.[Cl-]",
  "[Fe+2].c1cc[cH-]c1.c1cc[cH-]c1",
  "O=C(O)c1ccccc1O.[K+]",
  "CC[C@H](C)[C@H](NC(=O)[C@@H](N)CC(C)C)C(=O)O",
  "C1=CCCCCCC1",
  "C12CC(CC1)C=C2",
  "CN1CCC[C@H]1c1cccnc1",
  "O=C1c2ccccc2C(=O)N1C1CCC(=O)NC1=O",
  "CC(=O)Oc1ccccc1C(=O)O",
  "Cn1cnc2c1c(=O)n(C)c(=O)n2C",
  "COc1ccc2[nH]cc(CCNC(C)=O)c2c1",
];

function firstField(line: string, sep: RegExp = /\s+/): string {
  return (line.trim().split(sep)[0] ?? "").replace(/^"|"$/g, "");
}

/** Every `step`-th non-empty line's molecule of a file (first whitespace field, or the column `column` of a CSV). */
export function sampleFile(path: string, step: number, column?: number): string[] {
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim().length > 0 && !l.startsWith("#"));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += step) {
    const line = lines[i]!;
    out.push(column === undefined ? firstField(line) : (line.split(/[,\t]/)[column] ?? "").replace(/^"|"$/g, "").trim());
  }
  return out.filter((s) => s.length > 0);
}

/** The mixed set: `nci` NCI molecules evenly spaced, `wehi` WEHI molecules, ChEMBL_11265, the benzodiazepines, the special cases. */
export function mixedSet(options: { nci: number; wehi: number; chembl?: number }): string[] {
  const nciStep = Math.max(1, Math.floor(5000 / options.nci));
  const wehiStep = Math.max(1, Math.floor(10_000 / Math.max(1, options.wehi)));
  const set = [
    ...sampleFile(NCI_FILE, nciStep).slice(0, options.nci),
    ...(options.wehi > 0 ? sampleFile(`${RDKIT_DATA}/Data/Pains/test_data/wehi_mols.csv`, wehiStep, 0).slice(0, options.wehi) : []),
    ...sampleFile(`${RDKIT_DATA}/Contrib/fraggle/data/ChEMBL_11265_actives.smi`, 1).slice(0, options.chembl ?? 100),
    ...sampleFile(`${RDKIT_DATA}/Projects/DbCLI/testData/bzr.smi`, 1),
    ...SPECIAL_CASES,
  ];
  return [...new Set(set)];
}

/** Elements that are not metals for the excuse below (the organic non-metals, the halogens, the noble gases; B, Si, As, Se, Te as metalloids kept with them). */
const NON_METALS = new Set([1, 2, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 33, 34, 35, 36, 52, 53, 54, 85, 86]);

/**
 * Why native RDKit 2022.09 refuses a molecule WASM RDKit 2026.09 reads, when it is an upstream change:
 * 2022.09 rejects an explicit valence over its table on a molecule with a bond to a metal (Cl[Pt](Cl)([NH3])[NH3]:
 * "Explicit valence for atom # 3 N, 4"), where later RDKit's sanitisation first turns a hypervalent atom's single bond
 * to a metal into a dative one: rdkit/rdkit#6038 (merged February 2023) added it to the clean-up step, #6292 took it
 * out again, and #6357 (May 2023, RDKit 2023.09) reinstated it in SanitizeMol as MolOps::cleanupOrganometallics
 * (2022.09's rdmolops has no CleanupOrganometallics); the WASM build writes those bonds as -> in its SMILES. Returns the name of the
 * change, or undefined when the refusal is not explained.
 */
export function metalValenceExcuse(nativeError: string, bondedElements: Array<[number, number]>): string | undefined {
  if (!/Explicit valence/.test(nativeError)) return undefined;
  const metalBond = bondedElements.some(([a, b]) => !NON_METALS.has(a) || !NON_METALS.has(b));
  return metalBond ? "metal-ligand bonds made dative in sanitisation (rdkit/rdkit#6038, #6357: RDKit 2023.09)" : undefined;
}

/** The element pairs of a molecule's bonds, as WASM RDKit reads it. */
export function bondedElements(rdkit: RDKit, smiles: string): Array<[number, number]> {
  return withMol(rdkit, smiles, (mol) => {
    const g = molGraph(mol);
    return g.bonds.map((b): [number, number] => [g.atoms[b.begin]!.z, g.atoms[b.end]!.z]);
  });
}
