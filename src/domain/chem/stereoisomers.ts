/**
 * Stereoisomer enumeration on the molecule graph, as native RDKit's EnumerateStereoisomers
 * (rdkit.Chem.EnumerateStereoisomers, onlyUnassigned=True, unique=True) in RDKit 2022.09, which MinimalLib lacks.
 *
 * RDKit's algorithm: the candidate centres are the atoms legacy stereo perception flags as possible stereo
 * centres (AssignStereochemistry with flagPossibleStereoCenters: neighbours of distinct legacy CIP rank) and
 * the double bonds FindPotentialStereoBonds marks; every combination of tags is written, stereo is
 * re-perceived with cleanIt (tags that are no longer stereo are removed) and the isomers are de-duplicated by
 * isomeric SMILES. Here a candidate is found the same way the perception decides it: an unassigned atom (or
 * double bond) is a candidate when a tag set on it alone survives RDKit's perception and cleaning (the SMILES
 * written from the graph with that one tag keeps it); then every combination of the candidates' tags is
 * written through the same perception and de-duplicated by canonical SMILES.
 *
 * Perception: RDKit 2022.09's is the legacy one; later RDKit offers a new algorithm (MinimalLib
 * use_legacy_stereo_perception). The legacy one is used, set for the computation and restored afterwards: it is
 * what defines 2022.09's answer. Evidence (test/domain/chem/stereoisomers.oracle.test.ts and the README): for
 * 2,3,4-trihydroxyglutaric acid native 2022.09 leaves C3 (a pseudo-asymmetric centre) unassigned in its three
 * isomers; the new perception keeps a tag on C3, the legacy one removes it.
 */
import { cloneGraph, molGraph, molOf, type Graph, type GraphAtom } from "./graph.js";
import type { RDKit, RDKitMol } from "./rdkit.js";

/** Isomers answered (then the first ones in the fixed order, `truncated`). */
export const STEREOISOMERS_MAX = 1_024;

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
  const again = rdkit.get_mol(first);
  if (again === null) return undefined;
  try {
    return again.is_valid() ? again.get_smiles() : undefined;
  } finally {
    again.delete();
  }
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
    // Ring bonds: consecutive atoms of an RDKit atom ring (every ring bond lies on some SSSR ring).
    const ringBonds = new Set<string>();
    for (const ring of perceived.atomRings)
      for (const [k, a] of ring.entries()) {
        const b = ring[(k + 1) % ring.length]!;
        ringBonds.add(`${Math.min(a, b)}-${Math.max(a, b)}`);
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
    // Candidate double bonds: an unassigned non-aromatic acyclic double bond whose cis/trans label alone survives.
    const bonds: Array<{ index: number; ref: [number, number] }> = [];
    for (const [k, b] of base.bonds.entries()) {
      if (truncatedBy !== undefined || late()) break;
      // RDKit's FindPotentialStereoBonds leaves ring double bonds out (even in rings of 8 and more).
      if (b.bo !== 2 || b.aromatic || DOUBLE_BOND_SET.has(b.stereo) || ringBonds.has(`${Math.min(b.begin, b.end)}-${Math.max(b.begin, b.end)}`)) continue;
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
