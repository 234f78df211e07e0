/**
 * cluster_molecules and pick_diverse against native RDKit 2022.09 (/usr/bin/python3):
 * rdkit.ML.Cluster.Butina.ClusterData(dists, n, threshold, isDistData=True) on the lower-triangle matrix
 * 1 - BulkTanimotoSimilarity of GetMorganFingerprintAsBitVect(m, 2, 2048), and
 * rdSimDivPickers.MaxMinPicker().LazyBitVectorPick(fps, n, k, firstPicks=...) on the same fingerprints.
 *
 * Molecules: RDKit's NCI first_5K.smi (150 from the top, 100 from the middle), RDKit's PAINS test set
 * Data/Pains/test_data/wehi_mols.csv (150), and hand cases with stereo, charges, salts, metals, macrocycles
 * and exact duplicates (duplicates make ties of neighbour count and of distance, which both algorithms break
 * by index). Every cluster (membership and order) and every pick (order) must be equal: no exceptions.
 * Both the tools end to end (our fingerprints from the WASM RDKit) and the algorithms alone on the native
 * fingerprints are compared, so a fingerprint difference could not hide an algorithm difference.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { loadRDKit, type RDKit } from "../../src/domain/chem/rdkit.js";
import { butinaClusters, maxMinPicks, seededFirstPick } from "../../src/domain/chem/diversity.js";
import { clusterMoleculesTool } from "../../src/tools/cluster_molecules.js";
import { pickDiverseTool } from "../../src/tools/pick_diverse.js";
import { nativeRDKitMissing, oracleOutput, PYTHON, skipOracle } from "../helpers/oracle.js";

const NCI = "/usr/share/RDKit/Data/NCI/first_5K.smi";
const WEHI = "/usr/share/RDKit/Data/Pains/test_data/wehi_mols.csv";

const HAND = [
  "C[C@H](N)C(=O)O",
  "C[C@@H](N)C(=O)O",
  "C[C@H](N)C(=O)O",
  "F/C=C/F",
  "F/C=C\\F",
  "C[N+](C)(C)C.[Cl-]",
  "[Na+].[O-]C(=O)c1ccccc1",
  "OC(=O)c1ccccc1",
  "[NH3]->[Pt+2](<-[NH3])(Cl)Cl",
  "Cl[Pt]Cl",
  "C1CCCCCCCCCCCCCCC1",
  "CC1CCCCCCCCCC(=O)OCCCCC1",
  "O=C1CCCCCCCCCCCCCCN1",
  "c1ccccc1",
  "c1ccccc1",
  "c1ccccc1",
  "Cc1ccccc1",
  "CCO",
  "CCO",
  "[H][H]",
  "[U]",
  "CC(=O)Oc1ccccc1C(=O)O",
  "CC(=O)Oc1ccccc1C(=O)[O-]",
  "CN1C(=O)CN=C(c2ccccc2)c2cc(Cl)ccc21",
  "CC1(C)C(=O)N2[C@@H](C(=O)O)C(C)(C)S[C@@H]12",
];

function loadMolecules(): string[] {
  const nci = readFileSync(NCI, "utf8")
    .split("\n")
    .map((l) => l.split(/\s+/)[0]!)
    .filter(Boolean);
  const wehi = readFileSync(WEHI, "utf8")
    .split("\n")
    .map((l) => l.split(",")[0]!.replace(/^"|"$/g, ""))
    .filter(Boolean);
  return [...nci.slice(0, 150), ...nci.slice(2500, 2600), ...wehi.slice(0, 150), ...HAND];
}

interface Native {
  /** Index into the sent list of each molecule both sides parse, in order. */
  kept: number[];
  fps: string[];
  clusters: Record<string, number[][]>;
  picks: Array<{ n: number; first: number[]; seed?: number; picks: number[] }>;
}

const THRESHOLDS = [0.4, 0.2, 0.6, 0.75];
const PICKS = [
  { n: 40, first: [0] },
  { n: 60, first: [7, 3, 200] },
  { n: 1, first: [0] },
  { n: 25, first: [410] },
  { n: 30, first: [], seed: 42 },
  { n: 30, first: [], seed: 0 },
  { n: 10, first: [], seed: 2024 },
];

async function native(smiles: string[]): Promise<Native> {
  const script = [
    "import sys, json",
    "from rdkit import Chem, DataStructs, RDLogger",
    "from rdkit.Chem import AllChem",
    "from rdkit.ML.Cluster import Butina",
    "from rdkit.SimDivFilters import rdSimDivPickers",
    "RDLogger.DisableLog('rdApp.*')",
    "req = json.load(sys.stdin)",
    "kept, fps = [], []",
    "for i, s in enumerate(req['smiles']):",
    "    m = Chem.MolFromSmiles(s)",
    "    if m is None: continue",
    "    kept.append(i); fps.append(AllChem.GetMorganFingerprintAsBitVect(m, 2, 2048))",
    "n = len(fps)",
    "d = []",
    "for i in range(1, n):",
    "    sims = DataStructs.BulkTanimotoSimilarity(fps[i], fps[:i])",
    "    d.extend([1 - x for x in sims])",
    "clusters = {str(t): [list(c) for c in Butina.ClusterData(d, n, t, isDistData=True)] for t in req['thresholds']}",
    "picker = rdSimDivPickers.MaxMinPicker()",
    "picks = [{'n': p['n'], 'first': p['first'], 'seed': p.get('seed', -1), 'picks': list(picker.LazyBitVectorPick(fps, n, p['n'], firstPicks=p['first'], seed=p.get('seed', -1)))} for p in req['picks']]",
    "json.dump({'kept': kept, 'fps': [DataStructs.BitVectToFPSText(f) for f in fps], 'clusters': clusters, 'picks': picks}, sys.stdout)",
  ].join("\n");
  return JSON.parse(await oracleOutput({ program: script }, { input: JSON.stringify({ smiles, thresholds: THRESHOLDS, picks: PICKS }) })) as Native;
}

/** FPSText (hex, byte 0 first, low bit first in each byte) as 32-bit words, as fingerprintWords lays them out. */
function wordsOfFps(hex: string): Uint32Array {
  const bytes = Buffer.from(hex, "hex");
  return new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

async function oracleAvailable(t: { skip(message?: string): void }): Promise<boolean> {
  const missing = [PYTHON, NCI, WEHI].find((p) => !existsSync(p));
  if (missing) {
    skipOracle(t, `${missing} is not installed (native RDKit and its data files)`);
    return false;
  }
  const probe = await nativeRDKitMissing("from rdkit.ML.Cluster import Butina; from rdkit.SimDivFilters import rdSimDivPickers");
  if (probe !== undefined) {
    skipOracle(t, `native RDKit is not importable from ${PYTHON}: ${probe}`);
    return false;
  }
  return true;
}

let rdkit: RDKit;
let molecules: string[];
let nat: Native;

test("cluster_molecules equals RDKit's Butina.ClusterData and pick_diverse equals MaxMinPicker.LazyBitVectorPick on every cluster and pick", async (t) => {
  if (!(await oracleAvailable(t))) return;
  rdkit = await loadRDKit();
  molecules = loadMolecules();
  nat = await native(molecules);
  // The molecules both parse: the tools are sent exactly those, so indices line up with the native ones.
  const list = nat.kept.map((i) => molecules[i]!);
  assert.ok(list.length >= 400, `${list.length} molecules`);
  const ctx = { rdkit, progress: () => {} };
  let clusters = 0;
  for (const threshold of THRESHOLDS) {
    const got = clusterMoleculesTool.run({ smiles_list: list, threshold }, ctx);
    assert.equal(got.invalid_count, undefined, "every molecule native RDKit parses parses here");
    const want = nat.clusters[String(threshold)]!;
    assert.deepEqual(
      got.clusters.map((c) => c.members),
      want,
      `threshold ${threshold}: clusters (membership and order)`,
    );
    assert.ok(got.clusters.every((c) => c.centroid === c.members[0]));
    clusters += want.length;
    // The algorithm alone on the native fingerprints.
    assert.deepEqual(butinaClusters(nat.fps.map(wordsOfFps), threshold), want, `threshold ${threshold}, native fingerprints`);
  }
  for (const p of nat.picks) {
    const seeded = p.first.length === 0;
    const got = pickDiverseTool.run({ smiles_list: list, n: p.n, first_picks: p.first, ...(seeded ? { seed: p.seed } : {}) }, ctx);
    const label = seeded ? `n ${p.n}, seed ${p.seed}` : `n ${p.n} from ${p.first.join(",")}`;
    assert.deepEqual(got.picks, p.picks, label);
    const first = seeded ? [seededFirstPick(nat.fps.length, p.seed!)] : p.first;
    assert.deepEqual(maxMinPicks(nat.fps.map(wordsOfFps), p.n, first), p.picks, `${label}, native fingerprints`);
  }
  t.diagnostic(
    `${list.length} molecules (NCI 250, WEHI PAINS set 150, ${HAND.length} hand cases; ${molecules.length - list.length} native RDKit refuses): ` +
      `${THRESHOLDS.length} thresholds, ${clusters} clusters, all equal; ${PICKS.length} pick runs (3 from a seeded random first pick; ${PICKS.reduce((s, p) => s + p.n, 0)} picks), all equal`,
  );
});
