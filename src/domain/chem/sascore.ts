/**
 * Synthetic accessibility (SA) score of Ertl & Schuffenhauer (J. Cheminform. 2009, 1:8,
 * doi:10.1186/1758-2946-1-8), computed as RDKit's Contrib/SA_Score/sascorer.py (version of September 2013,
 * with its two documented changes to the paper: the macrocycle penalty is log10(2) for one or more
 * macrocycles, and a symmetry correction from the fingerprint density).
 *
 *   fragment score   mean contribution over the unfolded Morgan radius-2 environments, weighted by their
 *                    counts; an environment missing from the table contributes -4
 *   complexity       - (n^1.005 - n)                size, n = atoms in the molecule graph
 *                    - log10(stereocentres + 1)     stereo (NumAtomStereoCenters, assigned or not)
 *                    - log10(spiro atoms + 1)       spiro
 *                    - log10(bridgehead atoms + 1)  bridgehead
 *                    - log10(2) if any ring has more than 8 atoms
 *   symmetry         0.5 * ln(n / distinct environments) when n exceeds the number of distinct environments
 *   raw              fragment + complexity + symmetry
 *   score            11 - (raw + 5) / 6.5 * 9, then above 8 smoothed to 8 + ln(score - 8), clamped to [1, 10]
 *                    (as in sascorer.py, the smoothing makes scores just above 8 drop sharply: a quirk of the
 *                    reference kept here so that values stay equal to RDKit's)
 *
 * The stereocentre count is MinimalLib's NumAtomStereoCenters under RDKit's legacy stereo perception (the
 * MinimalLib default), which counts what sascorer's FindMolChiralCenters(includeUnassigned=True) counts,
 * except for one later RDKit fix (rdkit/rdkit#7434: a three-coordinate N that is sp2 or conjugated is no
 * longer a potential centre), which lowers the count for a few metal chelates.
 *
 * The fragment table is RDKit's fpscores.pkl.gz, turned into assets/sascore-fragments.bin.gz by
 * scripts/build-sascore-asset.py (format in that script; licence and citation in
 * assets/sascore-fragments.json). It is loaded on first use, once per thread.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { assetPath } from "../assets.js";
import { ToolError } from "../errors.js";
import { molGraph, type MolGraph } from "./graph.js";
import { morganCounts } from "./morgan.js";
import type { RDKit, RDKitDescriptors, RDKitMol } from "./rdkit.js";

export const SA_SCORE_CITATION =
  "Ertl, P.; Schuffenhauer, A. Estimation of synthetic accessibility score of drug-like molecules based on molecular " +
  "complexity and fragment contributions. J. Cheminform. 2009, 1, 8. doi:10.1186/1758-2946-1-8";

export const SA_SCORE_METHOD =
  "Ertl & Schuffenhauer SA score as RDKit's Contrib/SA_Score/sascorer.py computes it: fragment contributions of unfolded " +
  "Morgan radius-2 environments from RDKit's fpscores table, minus size, stereo, spiro, bridgehead and macrocycle " +
  "penalties, plus a symmetry correction, scaled to 1-10";

/** Contribution of an environment that is not in the table (sascorer.py's default). */
const UNKNOWN_FRAGMENT_SCORE = -4;

// ---- the fragment table ----

export interface FragmentTable {
  /** Environment ids, ascending. */
  ids: Uint32Array;
  /** Score row of each id (index into `scores`). */
  rows: Uint16Array;
  /** Distinct scores. */
  scores: Float64Array;
}

const MAGIC = "SAFS";
const FORMAT_VERSION = 1;
const SCORE_SCALE = 10_000;

/** Decodes the binary table (see scripts/build-sascore-asset.py); throws on any inconsistency. */
export function decodeFragmentTable(packed: Uint8Array): FragmentTable {
  const data = gunzipSync(packed);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const fail = (why: string): never => {
    throw new Error(`Malformed SA score fragment table (${why}); regenerate it with scripts/build-sascore-asset.py`);
  };
  if (data.byteLength < 16 || data.toString("latin1", 0, 4) !== MAGIC) fail("bad magic");
  if (view.getUint32(4, true) !== FORMAT_VERSION) fail("unknown version");
  const rowCount = view.getUint32(8, true);
  const idCount = view.getUint32(12, true);
  let pos = 16;
  if (rowCount === 0 || rowCount > 65_536 || pos + 2 * rowCount > data.byteLength) fail("bad row count");
  const scores = new Float64Array(rowCount);
  for (let r = 0; r < rowCount; r++, pos += 2) scores[r] = view.getInt16(pos, true) / SCORE_SCALE;
  const ids = new Uint32Array(idCount);
  let previous = 0;
  for (let k = 0; k < idCount; k++) {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (pos >= data.byteLength) fail("truncated ids");
      const byte = data[pos++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 128;
    }
    if (k > 0 && value === 0) fail("ids not strictly ascending");
    previous += value;
    if (previous > 0xffffffff) fail("id beyond 32 bits");
    ids[k] = previous;
  }
  if (pos + 2 * idCount !== data.byteLength) fail("length mismatch");
  const rows = new Uint16Array(idCount);
  for (let k = 0; k < idCount; k++) {
    const row = data[pos + k]! | (data[pos + idCount + k]! << 8);
    if (row >= rowCount) fail("row out of range");
    rows[k] = row;
  }
  return { ids, rows, scores };
}

let table: FragmentTable | undefined;

/** The fragment table of this thread, loaded on first use. */
export function fragmentTable(): FragmentTable {
  table ??= decodeFragmentTable(readFileSync(assetPath("sascore-fragments.bin.gz")));
  return table;
}

/** The table's score of an environment id, or undefined when the table does not hold it. */
export function fragmentScoreOf(id: number, t: FragmentTable = fragmentTable()): number | undefined {
  let lo = 0;
  let hi = t.ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = t.ids[mid]!;
    if (v < id) lo = mid + 1;
    else if (v > id) hi = mid - 1;
    else return t.scores[t.rows[mid]!];
  }
  return undefined;
}

// ---- the score ----

interface SaScoreTerms {
  /** Atoms in the molecule graph (heavy atoms plus any hydrogens kept as atoms). */
  atoms: number;
  /** Environments (with multiplicity) and distinct environment ids. */
  fragments: number;
  distinctFragments: number;
  /** Environments (with multiplicity) whose id is not in the table (they score -4). */
  unknownFragments: number;
  stereoCenters: number;
  spiroAtoms: number;
  bridgeheadAtoms: number;
  /** Rings of more than 8 atoms. */
  macrocycles: number;
}

export interface SaScoreResult {
  /** Final score, 1 (easy) to 10 (hard), unrounded. */
  score: number;
  /** Mean fragment contribution. */
  fragmentScore: number;
  /** Penalties as positive numbers; the complexity term of the raw score is minus their sum. */
  penalties: { size: number; stereo: number; spiro: number; bridgehead: number; macrocycle: number };
  complexityPenalty: number;
  /** Symmetry (fingerprint density) correction, >= 0. */
  symmetryCorrection: number;
  /** fragmentScore - complexityPenalty + symmetryCorrection, before scaling. */
  rawScore: number;
  terms: SaScoreTerms;
}

/** The 1-10 scale of sascorer.py: linear map of the raw score, smoothed above 8, clamped. */
export function scaleSaScore(raw: number): number {
  const min = -4.0;
  const max = 2.5;
  let score = 11 - ((raw - min + 1) / (max - min)) * 9;
  if (score > 8) score = 8 + Math.log(score + 1 - 9);
  return Math.min(10, Math.max(1, score));
}

/**
 * SA score of `mol`. `descriptors` must be descriptorsOf(mol) (NumAtomStereoCenters, NumSpiroAtoms,
 * NumBridgeheadAtoms); `graph` may pass an already built molGraph(mol).
 */
export function computeSaScore(rdkit: RDKit, mol: RDKitMol, descriptors: RDKitDescriptors, graph: MolGraph = molGraph(mol)): SaScoreResult {
  const t = fragmentTable();
  const counts = morganCounts(rdkit, graph, 2);
  let weighted = 0;
  let fragments = 0;
  let unknown = 0;
  for (const [id, count] of counts) {
    const s = fragmentScoreOf(id, t);
    if (s === undefined) unknown += count;
    weighted += (s ?? UNKNOWN_FRAGMENT_SCORE) * count;
    fragments += count;
  }
  const atoms = graph.atoms.length;
  if (fragments === 0 || atoms === 0) throw new ToolError("INVALID_SMILES", "The molecule has no atoms, so it has no SA score");
  const fragmentScore = weighted / fragments;

  const stereoCenters = descriptors.NumAtomStereoCenters;
  const spiroAtoms = descriptors.NumSpiroAtoms;
  const bridgeheadAtoms = descriptors.NumBridgeheadAtoms;
  const macrocycles = graph.atomRings.filter((ring) => ring.length > 8).length;
  const penalties = {
    size: atoms ** 1.005 - atoms,
    stereo: Math.log10(stereoCenters + 1),
    spiro: Math.log10(spiroAtoms + 1),
    bridgehead: Math.log10(bridgeheadAtoms + 1),
    macrocycle: macrocycles > 0 ? Math.log10(2) : 0,
  };
  // Summed in sascorer.py's order, so the raw score is the same double.
  const complexity = 0 - penalties.size - penalties.stereo - penalties.spiro - penalties.bridgehead - penalties.macrocycle;
  const symmetryCorrection = atoms > counts.size ? Math.log(atoms / counts.size) * 0.5 : 0;
  const rawScore = fragmentScore + complexity + symmetryCorrection;
  return {
    score: scaleSaScore(rawScore),
    fragmentScore,
    penalties,
    complexityPenalty: -complexity,
    symmetryCorrection,
    rawScore,
    terms: {
      atoms,
      fragments,
      distinctFragments: counts.size,
      unknownFragments: unknown,
      stereoCenters,
      spiroAtoms,
      bridgeheadAtoms,
      macrocycles,
    },
  };
}
