/**
 * Stereoisomer enumeration on the molecule graph, as native RDKit's EnumerateStereoisomers
 * (rdkit.Chem.EnumerateStereoisomers, unique=True) with RDKit's current stereo perception, which MinimalLib lacks.
 *
 * RDKit's algorithm: the candidates are the atoms and double bonds its perception flags as possible stereo;
 * every combination of tags is written, stereo is re-perceived with cleanIt (tags that are no longer stereo are
 * removed) and the isomers are de-duplicated by isomeric SMILES. Here the candidates are
 * - an unassigned atom or double bond whose tag set on it alone survives RDKit's perception and cleaning (the SMILES
 *   written from the graph with that one tag keeps it);
 * - every atom the new perception (FindPotentialStereo, Code/GraphMol/Chirality.cpp) flags as a possible centre
 *   ("(?)" in get_stereo_tags): ring cis/trans pairs (1,4-disubstituted cyclohexanes and the like), where neither
 *   ring atom is a centre on its own so a lone tag is removed but the pair is a configuration, and pseudo-asymmetric
 *   centres between two real ones (C3 of 2,3,4-trihydroxyglutaric acid: two meso forms, r and s at C3, and a pair of
 *   enantiomers: four isomers). Combinations that are no stereo collapse in the de-duplication;
 * - double bonds in rings: RDKit's isBondPotentialStereoBond accepts a ring double bond when no ring of the smallest
 *   set that holds it has fewer than Chirality::minRingSizeForDoubleBondStereo = 8 atoms (cyclooctene is E or Z;
 *   cyclohexene is not). RDKit 2022.09's legacy FindPotentialStereoBonds left every ring double bond out.
 * Every combination of the candidates' tags is written through the perception and de-duplicated by canonical SMILES.
 *
 * Writing: the SMILES are written with the legacy perception, as everywhere in the server (MinimalLib's default,
 * and RDKit 2022.09's), set for the computation and restored afterwards; it keeps ring cis/trans and
 * pseudo-asymmetric tags once every centre they depend on is set. Oracle: test/domain/chem/stereoisomers.oracle.test.ts
 * (native 2022.09 with SetUseLegacyStereoPerception(False), ring double bonds of 8 and more added by the upstream rule).
 */
import { cloneGraph, molGraph, molOf, type Graph, type GraphAtom } from "./graph.js";
import { rewrittenSmiles, type RDKit, type RDKitMol } from "./rdkit.js";

/** Isomers answered (then the first ones in the fixed order, `truncated`). */
const STEREOISOMERS_MAX = 1_024;

export interface StereoisomerResult {
  isomers: string[];
  /** Unassigned stereo centres and double bonds enumerated. */
  centres: number;
  double_bonds: number;
  truncated: boolean;
  truncated_by?: "max_isomers" | "time_budget";
}

const TETRAHEDRAL = new Set(["cw", "ccw"]);
const DOUBLE_BOND_SET = new Set(["cis", "trans"]);

/** RDKit's Chirality::minRingSizeForDoubleBondStereo (Code/GraphMol/Chirality.h). */
const MIN_RING_SIZE_FOR_DOUBLE_BOND_STEREO = 8;

/**
 * Atoms the new stereo perception flags as possible centres left unassigned ("(?)" in get_stereo_tags), with the
 * thread's perception setting restored afterwards.
 */
function possibleCentres(rdkit: RDKit, g: Graph<GraphAtom>): number[] {
  const previous = rdkit.use_legacy_stereo_perception(false);
  try {
    const mol = molOf(rdkit, g);
    if (mol === null) return [];
    try {
      const tags = JSON.parse(mol.get_stereo_tags()) as { CIP_atoms?: Array<[number, string]> };
      return (tags.CIP_atoms ?? []).filter(([, label]) => label === "(?)").map(([i]) => i);
    } finally {
      mol.delete();
    }
  } finally {
    rdkit.use_legacy_stereo_perception(previous);
  }
}

/** Canonical SMILES of a graph after RDKit's perception and cleaning (written, read again, written), or undefined. */
function canonicalOf(rdkit: RDKit, g: Graph<GraphAtom>): string | undefined {
  const mol = molOf(rdkit, g);
  if (mol === null) return undefined;
  let first: string;
  try {
    first = mol.get_smiles();
  } finally {
    mol.delete();
  }
  return rewrittenSmiles(rdkit, first);
}

function stereoMarks(smiles: string): { atoms: number; bonds: number } {
  return { atoms: (smiles.match(/@+/g) ?? []).length, bonds: (smiles.match(/[/\\]/g) ?? []).length };
}

/** Runs `fn` with legacy stereo perception on, restoring the thread's setting afterwards. */
export function withLegacyStereo<T>(rdkit: RDKit, fn: () => T): T {
  const previous = rdkit.use_legacy_stereo_perception(true);
  try {
    return fn();
  } finally {
    rdkit.use_legacy_stereo_perception(previous);
  }
}

export function enumerateStereoisomers(
  rdkit: RDKit,
  mol: RDKitMol,
  options: { onlyUnassigned?: boolean; maxIsomers?: number; deadline: number },
): StereoisomerResult {
  const onlyUnassigned = options.onlyUnassigned ?? true;
  const maxIsomers = options.maxIsomers ?? STEREOISOMERS_MAX;
  return withLegacyStereo(rdkit, () => {
    const perceived = molGraph(mol);
    const base = cloneGraph(perceived);
    // Smallest SSSR ring holding each ring bond (consecutive atoms of an RDKit atom ring; every ring bond lies on one).
    const smallestRing = new Map<string, number>();
    for (const ring of perceived.atomRings)
      for (const [k, a] of ring.entries()) {
        const b = ring[(k + 1) % ring.length]!;
        const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
        smallestRing.set(key, Math.min(smallestRing.get(key) ?? Infinity, ring.length));
      }
    if (!onlyUnassigned) {
      for (const a of base.atoms) if (TETRAHEDRAL.has(a.stereo)) a.stereo = "unspecified";
      for (const b of base.bonds)
        if (DOUBLE_BOND_SET.has(b.stereo) || b.stereo === "any") {
          b.stereo = "unspecified";
          delete b.stereoAtoms;
        }
    }
    const baseSmiles = canonicalOf(rdkit, base) ?? "";
    const baseMarks = stereoMarks(baseSmiles);
    const neighbours: number[][] = base.atoms.map(() => []);
    for (const b of base.bonds) {
      neighbours[b.begin]!.push(b.end);
      neighbours[b.end]!.push(b.begin);
    }
    // Candidate centres: an unassigned atom whose tag alone survives perception.
    const centres: number[] = [];
    let truncatedBy: StereoisomerResult["truncated_by"];
    const late = (): boolean => {
      if (Date.now() <= options.deadline) return false;
      truncatedBy = "time_budget";
      return true;
    };
    for (const [i, a] of base.atoms.entries()) {
      if (late()) break;
      if (TETRAHEDRAL.has(a.stereo) || a.aromatic) continue;
      const d = neighbours[i]!.length;
      if (d < 3 || d + a.hs < 3 || d + a.hs > 4 || a.hs > 1) continue;
      const g = cloneGraph(base);
      g.atoms[i]!.stereo = "cw";
      const s = canonicalOf(rdkit, g);
      if (s !== undefined && stereoMarks(s).atoms > baseMarks.atoms) centres.push(i);
    }
    // Atoms the new perception flags that legacy candidate-finding misses: ring cis/trans pairs and pseudo-asymmetric
    // centres, stereo only together with other centres (see the first comment). Combinations that are no stereo
    // collapse in the de-duplication.
    if (truncatedBy === undefined) {
      for (const i of possibleCentres(rdkit, base)) if (!centres.includes(i) && !TETRAHEDRAL.has(base.atoms[i]!.stereo)) centres.push(i);
      centres.sort((a, b) => a - b);
    }
    // Candidate double bonds: an unassigned non-aromatic double bond, acyclic or with no ring under eight atoms,
    // whose cis/trans label alone survives.
    const bonds: Array<{ index: number; ref: [number, number] }> = [];
    for (const [k, b] of base.bonds.entries()) {
      if (truncatedBy !== undefined || late()) break;
      if (b.bo !== 2 || b.aromatic || DOUBLE_BOND_SET.has(b.stereo)) continue;
      if ((smallestRing.get(`${Math.min(b.begin, b.end)}-${Math.max(b.begin, b.end)}`) ?? Infinity) < MIN_RING_SIZE_FOR_DOUBLE_BOND_STEREO) continue;
      const left = neighbours[b.begin]!.filter((n) => n !== b.end);
      const right = neighbours[b.end]!.filter((n) => n !== b.begin);
      if (left.length === 0 || right.length === 0) continue;
      const ref: [number, number] = [left[0]!, right[0]!];
      const g = cloneGraph(base);
      g.bonds[k]!.stereo = "trans";
      g.bonds[k]!.stereoAtoms = [...ref];
      const s = canonicalOf(rdkit, g);
      if (s !== undefined && stereoMarks(s).bonds > baseMarks.bonds) bonds.push({ index: k, ref });
    }
    const n = centres.length + bonds.length;
    const isomers = new Set<string>();
    if (truncatedBy !== undefined) {
      // The deadline passed while the candidates were sought: nothing is enumerated.
    } else if (n === 0) {
      if (baseSmiles) isomers.add(baseSmiles);
    } else {
      // Combinations in binary counting order: bit j (least significant first) is candidate j's tag
      // (centres in atom order, then double bonds in bond order), 0 = cw / trans, 1 = ccw / cis.
      const total = 2 ** n;
      for (let c = 0; c < total; c++) {
        if (Date.now() > options.deadline) {
          truncatedBy = "time_budget";
          break;
        }
        const g = cloneGraph(base);
        for (const [j, atom] of centres.entries()) g.atoms[atom]!.stereo = Math.floor(c / 2 ** j) % 2 === 0 ? "cw" : "ccw";
        for (const [j, bond] of bonds.entries()) {
          const b = g.bonds[bond.index]!;
          b.stereo = Math.floor(c / 2 ** (centres.length + j)) % 2 === 0 ? "trans" : "cis";
          b.stereoAtoms = [...bond.ref];
        }
        const s = canonicalOf(rdkit, g);
        if (s === undefined || isomers.has(s)) continue;
        if (isomers.size >= maxIsomers) {
          truncatedBy = "max_isomers";
          break;
        }
        isomers.add(s);
      }
    }
    return {
      isomers: [...isomers],
      centres: centres.length,
      double_bonds: bonds.length,
      truncated: truncatedBy !== undefined,
      ...(truncatedBy !== undefined ? { truncated_by: truncatedBy } : {}),
    };
  });
}
