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
 *  - a kept atom that loses a neighbour takes a hydrogen in its place (an aromatic heteroatom gets exactly
 *    one, as RDKit sets it), and a tetrahedral stereo label on it is cleared;
 *  - an acyclic molecule has the empty scaffold ''.
 * The generic scaffold is RDKit's MakeScaffoldGeneric of it: every heavy atom carbon, uncharged, without
 * stereo, every bond single, hydrogens by valence.
 */
import { canonicalOutput, type RDKit, type RDKitMol } from "./rdkit.js";
import { molGraph, molOf, subgraph, type Graph, type GraphAtom, type MolGraph } from "./graph.js";

/** The scaffold's graph: the kept atoms (in the input's order), with the hydrogens and labels RDKit gives them. */
function murckoGraph(g: MolGraph): Graph {
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
  // Exocyclic (and exo-linker) double bonds stay.
  const kept = keep.slice();
  for (let i = 0; i < n; i++) {
    if (keep[i]) continue;
    if (neighbours[i]!.some(({ atom, bond }) => keep[atom] && g.bonds[bond]!.bo === 2 && !g.bonds[bond]!.aromatic)) kept[i] = true;
  }
  const atoms: number[] = [];
  for (let i = 0; i < n; i++) if (kept[i]) atoms.push(i);
  const out = subgraph(g, atoms);
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
    if (!removed) return;
    if (keep[original] && atom.aromatic && atom.z !== 6) atom.hs = 1;
    else if (atom.aromatic) atom.hs += lost;
    else atom.hs = impliedHydrogens(atom, keptValence(out, k));
    atom.stereo = "unspecified";
  });
  return out;
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
export function murckoScaffold(rdkit: RDKit, mol: RDKitMol): string | null {
  return smilesOf(rdkit, murckoGraph(molGraph(mol)));
}

/** MakeScaffoldGeneric(GetScaffoldForMol(mol)) as canonical SMILES ('' for an acyclic molecule). */
export function genericScaffold(rdkit: RDKit, mol: RDKitMol): string | null {
  const murcko = murckoGraph(molGraph(mol));
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
