/**
 * enumerate_stereoisomers (src/domain/chem/stereoisomers.ts) against native RDKit 2022.09's
 * EnumerateStereoisomers(onlyUnassigned=True, unique=True) as sets, on molecules of RDKit's data files (NCI
 * first_5K, WEHI PAINS set, ChEMBL_11265 actives, benzodiazepines) and hand-picked stereo cases (meso and
 * pseudo-asymmetric centres, ring cis/trans, partly assigned molecules, double bonds, aziridine N). Molecules
 * whose native isomer count (GetStereoisomerCount) passes 1,024 are left out: native samples those at random.
 * Native SMILES are re-canonicalised by the WASM RDKit with the same (legacy) perception, so only the sets count.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadRDKit, parseSmiles, type RDKit } from "../../../src/domain/chem/rdkit.js";
import { enumerateStereoisomers, withLegacyStereo } from "../../../src/domain/chem/stereoisomers.js";
import { skipOracle } from "../../helpers/oracle.js";
import { NCI_FILE, mixedSet } from "../../helpers/rdkit-data-sets.js";

const PYTHON = "/usr/bin/python3";

export const STEREO_CASES = [
  "OC(=O)C(O)C(O)C(O)C(=O)O",
  "OC(=O)C(O)C(O)C(=O)O",
  "CC(O)C(O)C",
  "CC1CCC(C)CC1",
  "CC1CC(C)CC(C)C1",
  "C[C@H](N)C(O)CC",
  "CN1CC1C",
  "CC=CC=CC",
  "CC=CC(C)O",
  "C/C=C/C=CC",
  "OC1CCCCC1O",
  "CC(Cl)(Br)I",
  "C1CC2CCC1C2",
  "CC(C)C(N)C(=O)O",
  "OCC(O)C(O)C(O)C(O)C=O",
  "C1=CCCCCCC1",
  "CC=C1CCC(C)CC1",
  "N[C@@H](CC(C)C)C(=O)NC(C)C(=O)O",
  "C[S+]([O-])CC",
  "CP(=O)(O)OC(C)C",
];

const SCRIPT = String.raw`
import sys, json
from rdkit import Chem, RDLogger
from rdkit.Chem.EnumerateStereoisomers import EnumerateStereoisomers, StereoEnumerationOptions, GetStereoisomerCount
RDLogger.DisableLog('rdApp.*')
opts = StereoEnumerationOptions(onlyUnassigned=True, unique=True)
for line in sys.stdin:
  s = line.strip()
  m = Chem.MolFromSmiles(s)
  if m is None:
    print(json.dumps({'smiles': s, 'error': 'parse'})); continue
  n = GetStereoisomerCount(m, options=opts)
  if n > 1024:
    print(json.dumps({'smiles': s, 'skipped': n})); continue
  print(json.dumps({'smiles': s, 'isomers': sorted(set(Chem.MolToSmiles(x) for x in EnumerateStereoisomers(m, options=opts)))}))
`;

function skipReason(): string | undefined {
  if (!existsSync(NCI_FILE)) return `${NCI_FILE} is absent (Debian package rdkit-data provides it)`;
  const probe = spawnSync(PYTHON, ["-c", "import rdkit"], { encoding: "utf8" });
  if (probe.error !== undefined || probe.status !== 0) return `${PYTHON} cannot import rdkit (Debian package python3-rdkit)`;
  return undefined;
}

function canonical(rdkit: RDKit, smiles: string): string {
  return withLegacyStereo(rdkit, () => {
    const m = rdkit.get_mol(smiles);
    if (m === null) return `unparsable:${smiles}`;
    try {
      return m.get_smiles();
    } finally {
      m.delete();
    }
  });
}

test("enumerate_stereoisomers: the isomer set equals native RDKit 2022.09 EnumerateStereoisomers(onlyUnassigned, unique) on every molecule", async (t) => {
  const reason = skipReason();
  if (reason) return skipOracle(t, reason);
  const rdkit = await loadRDKit();
  const smiles = [...new Set([...mixedSet({ nci: 100, wehi: 40, chembl: 40 }), ...STEREO_CASES])];
  const run = spawnSync(PYTHON, ["-c", SCRIPT], { input: smiles.join("\n") + "\n", encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
  assert.equal(run.status, 0, run.stderr);
  const native = run.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { smiles: string; error?: string; skipped?: number; isomers?: string[] });
  let compared = 0;
  let isomers = 0;
  let withStereo = 0;
  let skipped = 0;
  let ms = 0;
  const differences: string[] = [];
  for (const [i, smi] of smiles.entries()) {
    const ref = native[i]!;
    if (ref.error !== undefined || ref.skipped !== undefined) {
      skipped++;
      continue;
    }
    const mol = parseSmiles(rdkit, smi);
    let ours;
    try {
      const t0 = performance.now();
      ours = enumerateStereoisomers(rdkit, mol, { deadline: Date.now() + 60_000 });
      ms += performance.now() - t0;
    } finally {
      mol.delete();
    }
    compared++;
    const theirs = new Set(ref.isomers!.map((s) => canonical(rdkit, s)));
    const mine = new Set(ours.isomers);
    isomers += mine.size;
    if (mine.size > 1) withStereo++;
    const onlyOurs = [...mine].filter((s) => !theirs.has(s));
    const onlyNative = [...theirs].filter((s) => !mine.has(s));
    if (onlyOurs.length + onlyNative.length > 0)
      differences.push(
        `${smi}: ours ${mine.size}, native ${theirs.size}; only ours ${JSON.stringify(onlyOurs.slice(0, 3))}, only native ${JSON.stringify(onlyNative.slice(0, 3))}`,
      );
  }
  t.diagnostic(
    `enumerate_stereoisomers: ${smiles.length} molecules, ${compared} compared (${withStereo} with more than one isomer, ${isomers} isomers), ${skipped} skipped (unparsed or over 1,024 natively), ` +
      `${differences.length} differ; ours ${Math.round(ms)} ms`,
  );
  for (const d of differences) t.diagnostic(d);
  assert.deepEqual(differences, []);
});
