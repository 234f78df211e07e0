/**
 * Bemis-Murcko scaffolds on the molecule graph (RDKit MinimalLib has no GetScaffoldForMol).
 *
 * Bemis, G. W.; Murcko, M. A. "The Properties of Known Drugs. 1. Molecular Frameworks", J. Med. Chem.
 * 1996, 39, 2887-2893. Written after RDKit's published algorithm (MurckoDecompose, Code/GraphMol/ChemTransforms,
 * which rdkit.Chem.Scaffolds.MurckoScaffold.GetScaffoldForMol calls), read and re-expressed here:
 *  - ring atoms are kept, and so is every atom on the shortest path between two rings (the linkers). The
 *    atoms and bonds outside rings form a forest, so these are exactly the atoms left once non-ring atoms
 *    with at most one kept neighbour are pruned, over and over;
 *  - an atom outside that set stays when a non-aromatic double bond joins it to a kept atom (C=O on a ring
 *    or linker, as RDKit keeps it);
 *  - a core atom that loses a neighbour is "fixed" (ChemTransforms.cpp, MurckoDecompose's removal loop): an
 *    aromatic heteroatom or aromatic carbocation gets exactly one hydrogen, any other atom loses its
 *    noImplicit flag and chiral tag and gets its hydrogens recomputed; an atom kept only for its double bond
 *    to the core is never fixed, so a bracket atom (=[N+](C)C) keeps its written count ([N+]);
 *  - GetScaffoldForMol does not sanitize: no aromaticity or radical perception. MolToSmiles perceives
 *    double-bond stereo again from the input's bond directions (/ \), so a double bond stays stereo only
 *    while each end keeps a directed single bond (rereadStereo);
 *  - an acyclic molecule has the empty scaffold ''.
 * The generic scaffold is RDKit's MakeScaffoldGeneric of it: every heavy atom carbon, uncharged, without
 * stereo, every bond single, hydrogens by valence.
 */
import { canonicalOutput, type RDKit, type RDKitMol } from "./rdkit.js";
import { molGraph, molOf, subgraph, type Graph, type GraphAtom, type GraphBond, type MolGraph } from "./graph.js";
import { bracketAtoms, directedBonds } from "./smiles-lexer.js";

/**
 * What the molecule's text says that RDKit's molecule keeps and MinimalLib does not expose (see scaffoldHints):
 * without it every hydrogen count is recomputed, and a double bond keeps its stereo while both of its
 * reference atoms stay.
 */
export interface ScaffoldHints {
  /** Per atom, RDKit's noImplicit flag (a SMILES bracket atom): its hydrogen count is fixed unless MurckoDecompose resets it. */
  noImplicit?: readonly boolean[];
  /** The bonds written with a direction (/ or \\), by their atoms: RDKit perceives double-bond stereo from these again. */
  directedBonds?: ReadonlyArray<readonly [number, number]>;
}

/** The hints of a SMILES (none for a molblock, whose atoms RDKit reads without noImplicit or bond directions kept). */
export function scaffoldHints(text: string, atomCount: number): ScaffoldHints {
  if (/\n/.test(text.trim())) return {};
  const noImplicit = bracketAtoms(text, atomCount);
  const directed = directedBonds(text, atomCount);
  return { ...(noImplicit ? { noImplicit } : {}), ...(directed ? { directedBonds: directed } : {}) };
}

/** The scaffold's graph: the kept atoms (in the input's order), with the hydrogens and labels RDKit gives them. */
function murckoGraph(g: MolGraph, hints: ScaffoldHints = {}): Graph {
  const n = g.atoms.length;
  const neighbours: Array<Array<{ atom: number; bond: number }>> = g.atoms.map(() => []);
  g.bonds.forEach((b, i) => {
    neighbours[b.begin]!.push({ atom: b.end, bond: i });
    neighbours[b.end]!.push({ atom: b.begin, bond: i });
  });
  const keep = g.inRing.slice(0, n);
  if (!keep.some(Boolean)) return { atoms: [], bonds: [] };
  // Linkers: prune non-ring atoms with at most one kept neighbour until none is left.
  const alive = g.atoms.map(() => true);
  const liveDegree = neighbours.map((list) => list.length);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (!keep[i] && liveDegree[i]! <= 1) queue.push(i);
  while (queue.length > 0) {
    const i = queue.pop()!;
    if (!alive[i]) continue;
    alive[i] = false;
    for (const { atom } of neighbours[i]!) {
      if (!alive[atom]) continue;
      liveDegree[atom]!--;
      if (!keep[atom] && liveDegree[atom]! <= 1) queue.push(atom);
    }
  }
  for (let i = 0; i < n; i++) if (alive[i]) keep[i] = true;
  // MurckoDecompose's loop over the other atoms, in order: each walks its neighbours in bond order; a double
  // bond to a core atom keeps it (and ends the walk), and every core neighbour met before that is "fixed".
  const kept = keep.slice();
  const fixed = g.atoms.map(() => false);
  for (let i = 0; i < n; i++) {
    if (keep[i]) continue;
    for (const { atom, bond } of neighbours[i]!) {
      if (!keep[atom]) continue;
      if (g.bonds[bond]!.bo === 2 && !g.bonds[bond]!.aromatic) {
        kept[i] = true;
        break;
      }
      fixed[atom] = true;
    }
  }
  const atoms: number[] = [];
  for (let i = 0; i < n; i++) if (kept[i]) atoms.push(i);
  const out = subgraph({ atoms: g.atoms, bonds: rereadStereo(g, neighbours, kept, hints) }, atoms);
  atoms.forEach((original, k) => {
    const atom = out.atoms[k]!;
    let lost = 0;
    let removed = false;
    for (const { atom: other, bond } of neighbours[original]!) {
      if (kept[other]) continue;
      removed = true;
      const bo = g.bonds[bond]!.bo;
      lost += bo >= 1 && bo <= 3 ? bo : 0;
    }
    if (fixed[original]) {
      // An aromatic heteroatom or aromatic carbocation gets one explicit hydrogen; any other atom loses its
      // noImplicit flag, explicit hydrogens and chiral tag, and RDKit recomputes its hydrogens.
      if (atom.aromatic && (atom.z !== 6 || atom.chg === 1)) atom.hs = 1;
      else {
        atom.hs = atom.aromatic ? atom.hs + lost : impliedHydrogens(atom, keptValence(out, k));
        atom.stereo = "unspecified";
      }
    } else if (removed && !hints.noImplicit?.[original]) {
      // Kept for its double bond to the core and left untouched: RDKit recomputes an implicit count only.
      atom.hs = impliedHydrogens(atom, keptValence(out, k));
    }
  });
  return out;
}

const FLIPPED: Readonly<Record<string, string>> = { cis: "trans", trans: "cis" };

/**
 * The bonds with the double-bond stereo RDKit's SMILES writer perceives again on the scaffold, from the bond
 * directions of the input: a double bond stays stereo only while each end keeps a directed single bond; a
 * removed reference atom is replaced by the end's other kept neighbour (the label flips). Without the
 * directions, a bond keeps its stereo while both reference atoms stay (subgraph's rule).
 */
function rereadStereo(g: MolGraph, neighbours: Array<Array<{ atom: number; bond: number }>>, kept: boolean[], hints: ScaffoldHints): GraphBond[] {
  if (hints.directedBonds === undefined) return g.bonds;
  const directed = new Set(hints.directedBonds.map(([a, b]) => (a < b ? `${a},${b}` : `${b},${a}`)));
  const isDirected = (a: number, b: number) => directed.has(a < b ? `${a},${b}` : `${b},${a}`);
  return g.bonds.map((b) => {
    if (b.stereoAtoms === undefined || b.stereoAtoms.length !== 2 || !kept[b.begin] || !kept[b.end]) return b;
    const bond: GraphBond = { ...b, stereoAtoms: [...b.stereoAtoms] };
    let stillStereo = true;
    [b.begin, b.end].forEach((end, side) => {
      const partner = side === 0 ? b.end : b.begin;
      const others = neighbours[end]!.map((x) => x.atom).filter((x) => x !== partner && kept[x]);
      if (!others.some((x) => isDirected(end, x))) stillStereo = false;
      else if (!kept[bond.stereoAtoms![side]!]) {
        const flipped = FLIPPED[bond.stereo];
        if (flipped === undefined) stillStereo = false;
        else {
          bond.stereoAtoms![side] = others[0]!;
          bond.stereo = flipped;
        }
      }
    });
    if (stillStereo) return bond;
    const plain: GraphBond = { ...b, stereo: "unspecified" };
    delete plain.stereoAtoms;
    return plain;
  });
}

/**
 * Allowed valences by (isoelectronic) atomic number, RDKit's periodic table for the main-group elements: an
 * atom that lost a neighbour gets its hydrogens back from these (RDKit re-perceives them); other elements
 * (metals) get none, as RDKit gives an element without a default valence.
 */
const VALENCES: Readonly<Record<number, readonly number[]>> = {
  5: [3],
  6: [4],
  7: [3],
  8: [2],
  9: [1],
  14: [4],
  32: [4],
  50: [2, 4],
  82: [2, 4],
  15: [3, 5, 7],
  16: [2, 4, 6],
  17: [1],
  33: [3, 5, 7],
  34: [2, 4, 6],
  35: [1],
  51: [3, 5, 7],
  52: [2, 4, 6],
  53: [1, 3, 5],
};

function keptValence(g: Graph, atom: number): number {
  let v = g.atoms[atom]!.nRad;
  for (const b of g.bonds) if (b.begin === atom || b.end === atom) v += b.bo >= 1 && b.bo <= 3 ? b.bo : 0;
  return v;
}

function impliedHydrogens(atom: GraphAtom, valence: number): number {
  const allowed = VALENCES[atom.z - atom.chg];
  if (!allowed) return 0;
  const v = allowed.find((x) => x >= valence);
  return v === undefined ? 0 : v - valence;
}

/** RDKit's MakeScaffoldGeneric of a graph: heavy atoms carbon, uncharged, no stereo; bonds single; hydrogens by valence. */
function genericGraph(g: Graph): Graph {
  const degree = g.atoms.map(() => 0);
  for (const b of g.bonds) {
    degree[b.begin]!++;
    degree[b.end]!++;
  }
  const atoms = g.atoms.map((a, i): GraphAtom => ({
    ...a,
    z: a.z === 1 ? 1 : 6,
    chg: 0,
    aromatic: false,
    stereo: "unspecified",
    hs: a.z === 1 ? 0 : Math.max(0, 4 - degree[i]! - a.nRad),
  }));
  const bonds = g.bonds.map((b) => {
    const bond = { ...b, bo: 1, aromatic: false, stereo: "unspecified" };
    delete bond.stereoAtoms;
    return bond;
  });
  return { atoms, bonds };
}

function smilesOf(rdkit: RDKit, g: Graph): string | null {
  if (g.atoms.length === 0) return "";
  const mol = molOf(rdkit, g);
  if (mol === null) return null;
  try {
    return canonicalOutput(rdkit, mol.get_smiles());
  } finally {
    mol.delete();
  }
}

/** The Murcko scaffold's canonical SMILES ('' for an acyclic molecule; null if RDKit cannot write it). */
export function murckoScaffold(rdkit: RDKit, mol: RDKitMol, hints?: ScaffoldHints): string | null {
  return smilesOf(rdkit, murckoGraph(molGraph(mol), hints));
}

/** MakeScaffoldGeneric(GetScaffoldForMol(mol)) as canonical SMILES ('' for an acyclic molecule). */
export function genericScaffold(rdkit: RDKit, mol: RDKitMol, hints?: ScaffoldHints): string | null {
  const murcko = murckoGraph(molGraph(mol), hints);
  if (murcko.atoms.length === 0) return "";
  // From the scaffold as RDKit reads it back: its radicals are RDKit's perception, as MakeScaffoldGeneric sees them.
  const scaffold = molOf(rdkit, murcko);
  if (scaffold === null) return null;
  try {
    return smilesOf(rdkit, genericGraph(molGraph(scaffold)));
  } finally {
    scaffold.delete();
  }
}
