/**
 * The molecule graph every chemistry module reads from RDKit: one reader of MinimalLib's get_json() output
 * (commonchem JSON with RDKit's "rdkitjson" header and its "rdkitRepresentation" extension), one typed graph,
 * the element table, and the few graph operations the standardiser edits molecules with.
 *
 * RDKit's JSON leaves out every atom or bond field whose value equals the document's `defaults` block (and
 * writes no field that equals the built-in default of RDKIT_JSON_DEFAULTS when that block is absent), so a
 * reader must fill each field from the atom, then the document's defaults, then the built-in defaults; that
 * rule lives here only. Bond orders are Kekulé (1, 2, 3; 0 for a zero-order bond, 17 for a dative one); the
 * aromatic atoms and bonds, and the atom rings of RDKit's RingInfo, come from the extension.
 */
import type { RDKit, RDKitMol } from "./rdkit.js";

// ---------------------------------------------------------------------------------------------------------
// Elements.

/** Element symbols by atomic number, 1-118; index 0 is RDKit's dummy atom "*". */
const ELEMENT_SYMBOLS: readonly string[] = (
  "* H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb " +
  "Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es " +
  "Fm Md No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og"
).split(" ");

const ATOMIC_NUMBERS = new Map(ELEMENT_SYMBOLS.map((s, z) => [s, z]));

/**
 * The element symbol of atomic number `z` (0-118): "*" for 0, RDKit's dummy atom; case as in the periodic
 * table ("Cl"). Throws for any other number: RDKit never writes one, so it is a programming error.
 */
export function elementSymbol(z: number): string {
  const symbol = ELEMENT_SYMBOLS[z];
  if (symbol === undefined) throw new Error(`No element symbol for atomic number ${z}`);
  return symbol;
}

/** The atomic number of an element symbol (case-sensitive, "*" is 0), or undefined when it names no element. */
export function atomicNumber(symbol: string): number | undefined {
  return ATOMIC_NUMBERS.get(symbol);
}

// ---------------------------------------------------------------------------------------------------------
// RDKit's JSON as written (what get_json() writes and get_mol() reads).

export interface RdkitJsonAtom {
  z?: number;
  impHs?: number;
  chg?: number;
  nRad?: number;
  isotope?: number;
  stereo?: string;
  [key: string]: unknown;
}

export interface RdkitJsonBond {
  bo?: number;
  atoms: [number, number];
  stereo?: string;
  stereoAtoms?: number[];
  [key: string]: unknown;
}

interface RdkitJsonExtension {
  name?: string;
  aromaticAtoms?: number[];
  aromaticBonds?: number[];
  atomRings?: number[][];
  [key: string]: unknown;
}

export interface RdkitJsonMolecule {
  atoms: RdkitJsonAtom[];
  bonds?: RdkitJsonBond[];
  conformers?: Array<{ dim?: number; coords: number[][] }>;
  extensions?: RdkitJsonExtension[];
  [key: string]: unknown;
}

interface RdkitJsonDoc {
  defaults?: { atom?: RdkitJsonAtom; bond?: Partial<RdkitJsonBond> };
  molecules: RdkitJsonMolecule[];
  [key: string]: unknown;
}

/** The built-in defaults of RDKit's JSON (what a field means when neither the atom nor `defaults` gives it). */
export const RDKIT_JSON_DEFAULTS = {
  atom: { z: 6, impHs: 0, chg: 0, nRad: 0, isotope: 0, stereo: "unspecified" },
  bond: { bo: 1, stereo: "unspecified" },
} as const;

/** rdkitjson bond order of a dative bond (RDKit's Bond::DATIVE, rdkitjson >= 12), atoms[0] the donor. */
export const BO_DATIVE = 17;

/** RDKit's JSON document of `mol`, parsed (one get_json() call). */
function readRdkitJson(mol: RDKitMol): RdkitJsonDoc {
  return JSON.parse(mol.get_json()) as RdkitJsonDoc;
}

/** The extension RDKit writes its aromaticity and ring perception into, if any. */
function rdkitRepresentation(molecule: RdkitJsonMolecule): RdkitJsonExtension | undefined {
  return (molecule.extensions ?? []).find((e) => e.name === "rdkitRepresentation" || e.name === "rdkit-representation");
}

// ---------------------------------------------------------------------------------------------------------
// The graph.

export interface GraphAtom {
  /** Atomic number (0 for a dummy atom). */
  z: number;
  /** Formal charge. */
  chg: number;
  /** Mass number, 0 for natural abundance. */
  isotope: number;
  /** Total hydrogens on the atom (implicit plus bracket/explicit-count H; hydrogen atoms of the graph are atoms). */
  hs: number;
  /** Radical electrons. */
  nRad: number;
  /** Tetrahedral tag as RDKit writes it ("unspecified", "cw", "ccw", ...), relative to the atom's bond order. */
  stereo: string;
  /** Aromatic in RDKit's model. */
  aromatic: boolean;
}

export interface GraphBond {
  begin: number;
  end: number;
  /** Kekulé bond order as RDKit's JSON writes it: 0 zero-order, 1-3, 4 quadruple, 17 dative (begin -> end). */
  bo: number;
  /** Aromatic in RDKit's model (bo then is one Kekulé order). */
  aromatic: boolean;
  /** Double-bond stereo as RDKit writes it ("unspecified", "cis", "trans", ...). */
  stereo: string;
  /** The reference atoms of a cis/trans bond (a neighbour of begin, a neighbour of end). */
  stereoAtoms?: number[];
}

/** Atoms and bonds, in RDKit's order; `A` lets an editor carry more per atom (see standardize.ts). */
export interface Graph<A extends GraphAtom = GraphAtom> {
  atoms: A[];
  bonds: GraphBond[];
}

/** A graph as RDKit perceived it, with what only the reader knows. */
export interface MolGraph extends Graph {
  /** Atom rings as RDKit's RingInfo lists them ([] when RDKit wrote none). */
  atomRings: number[][];
  /** Whether each atom is in a ring (in some atom ring). */
  inRing: boolean[];
  /** x, y of each atom from the first conformer, when it has one for every atom; otherwise null. */
  coords: Array<[number, number]> | null;
}

/** The graph of an RDKit JSON document (its first molecule; an empty graph when it has none). */
function graphFromJson(doc: RdkitJsonDoc): MolGraph {
  const m = doc.molecules?.[0];
  if (m === undefined) return { atoms: [], bonds: [], atomRings: [], inRing: [], coords: null };
  const da = { ...RDKIT_JSON_DEFAULTS.atom, ...doc.defaults?.atom };
  const db = { ...RDKIT_JSON_DEFAULTS.bond, ...doc.defaults?.bond };
  const ext = rdkitRepresentation(m);
  const aromaticAtoms = new Set(ext?.aromaticAtoms ?? []);
  const aromaticBonds = new Set(ext?.aromaticBonds ?? []);
  const atomRings = ext?.atomRings ?? [];
  const rawAtoms = m.atoms ?? [];
  const inRing = rawAtoms.map(() => false);
  for (const ring of atomRings) for (const i of ring) inRing[i] = true;
  const atoms = rawAtoms.map((raw, i): GraphAtom => {
    const a = { ...da, ...raw };
    return { z: a.z, chg: a.chg, isotope: a.isotope, hs: a.impHs, nRad: a.nRad, stereo: a.stereo, aromatic: aromaticAtoms.has(i) };
  });
  const bonds = (m.bonds ?? []).map((raw, i): GraphBond => {
    const b = { ...db, ...raw };
    const [begin, end] = b.atoms ?? [];
    if (begin === undefined || end === undefined || atoms[begin] === undefined || atoms[end] === undefined)
      throw new Error("Malformed MolJSON bond from RDKit");
    const bond: GraphBond = { begin, end, bo: b.bo, aromatic: aromaticBonds.has(i), stereo: b.stereo };
    if (Array.isArray(b.stereoAtoms)) bond.stereoAtoms = [...b.stereoAtoms];
    return bond;
  });
  const conformer = (m.conformers ?? [])[0];
  const coords = conformer && conformer.coords.length === atoms.length ? conformer.coords.map((c): [number, number] => [c[0] ?? 0, c[1] ?? 0]) : null;
  return { atoms, bonds, atomRings, inRing, coords };
}

/** The graph of `mol`, from one get_json() call. */
export function molGraph(mol: RDKitMol): MolGraph {
  return graphFromJson(readRdkitJson(mol));
}

/** Neighbour lists of every atom, in bond order (RDKit's reference order for chirality). */
export function neighbourLists(atomCount: number, bonds: readonly { atoms: readonly [number, number] }[]): number[][] {
  const lists: number[][] = Array.from({ length: atomCount }, () => []);
  for (const b of bonds) {
    lists[b.atoms[0]]!.push(b.atoms[1]);
    lists[b.atoms[1]]!.push(b.atoms[0]);
  }
  return lists;
}

/** The adjacency of a graph: each atom's neighbours, in bond order. */
export function adjacency(g: Graph<GraphAtom>): number[][] {
  return neighbourLists(
    g.atoms.length,
    g.bonds.map((b) => ({ atoms: [b.begin, b.end] as const })),
  );
}

/** Bonds at `atom`. */
export function degree(g: Graph<GraphAtom>, atom: number): number {
  let d = 0;
  for (const b of g.bonds) if (b.begin === atom || b.end === atom) d++;
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Editing: graphs back to RDKit, fragments, subgraphs.

/** RDKit JSON of a graph (aromaticity and rings left to RDKit's perception when it reads it). */
export function graphJson(g: Graph<GraphAtom>): string {
  const atoms = g.atoms.map((a) => ({ z: a.z, impHs: a.hs, chg: a.chg, nRad: a.nRad, isotope: a.isotope, stereo: a.stereo }));
  const bonds = g.bonds.map((b) => {
    const out: Record<string, unknown> = { bo: b.bo, atoms: [b.begin, b.end], stereo: b.stereo };
    if (b.stereoAtoms) out.stereoAtoms = b.stereoAtoms;
    return out;
  });
  // Dative bonds (bo 17) are rdkitjson 12's; everything else reads the same in 11.
  const version = g.bonds.some((b) => b.bo === BO_DATIVE) ? 12 : 11;
  return JSON.stringify({ rdkitjson: { version }, defaults: RDKIT_JSON_DEFAULTS, molecules: [{ atoms, bonds }] });
}

/**
 * MinimalLib's get_mol options for reading RDKit JSON back. Its default stereo assignment (assignStereo) clears
 * every cis/trans label the JSON gives (measured on 2026.09: C/C=C/C(=O)O came back as CC=CC(=O)O), because
 * that perception reads double-bond stereo from bond directions, which JSON has none of. The labels and
 * reference atoms are RDKit's own, written by get_json(); get_smiles() still perceives and cleans stereo
 * (atoms or bonds that are no longer stereo centres lose their labels) when it writes the SMILES.
 */
const JSON_READ_OPTIONS = JSON.stringify({ assignStereo: false });

/** An RDKit molecule from RDKit JSON, its double-bond stereo kept (caller deletes); null when RDKit rejects it. */
export function molFromJson(rdkit: RDKit, json: string): RDKitMol | null {
  const mol = rdkit.get_mol(json, JSON_READ_OPTIONS);
  if (mol === null) return null;
  if (!mol.is_valid()) {
    mol.delete();
    return null;
  }
  return mol;
}

/** The graph as an RDKit molecule (caller deletes), or null when RDKit rejects it (e.g. a valence error). */
export function molOf(rdkit: RDKit, g: Graph<GraphAtom>): RDKitMol | null {
  return molFromJson(rdkit, graphJson(g));
}

/** `fn` of the graph as an RDKit molecule, which is deleted afterwards; undefined when RDKit rejects the graph. */
export function withGraphMol<T>(rdkit: RDKit, g: Graph<GraphAtom>, fn: (mol: RDKitMol) => T): T | undefined {
  const mol = molOf(rdkit, g);
  if (mol === null) return undefined;
  try {
    return fn(mol);
  } finally {
    mol.delete();
  }
}

function copyBond(b: GraphBond, map: (atom: number) => number): GraphBond {
  const bond: GraphBond = { ...b, begin: map(b.begin), end: map(b.end) };
  if (b.stereoAtoms) bond.stereoAtoms = b.stereoAtoms.map(map);
  return bond;
}

/** A deep copy. */
export function cloneGraph<A extends GraphAtom>(g: Graph<A>): Graph<A> {
  return { atoms: g.atoms.map((a) => ({ ...a })), bonds: g.bonds.map((b) => copyBond(b, (i) => i)) };
}

/** Connected components, numbered by their lowest atom index; each lists its atoms in index order. */
export function fragments(g: Graph<GraphAtom>): number[][] {
  const parent = g.atoms.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for (const b of g.bonds) {
    const [x, y] = [find(b.begin), find(b.end)];
    if (x !== y) parent[Math.max(x, y)] = Math.min(x, y);
  }
  const groups = new Map<number, number[]>();
  for (let i = 0; i < g.atoms.length; i++) {
    const root = find(i);
    let list = groups.get(root);
    if (!list) groups.set(root, (list = []));
    list.push(i);
  }
  return [...groups.values()];
}

/** The part of the graph on `atoms` (kept in the given order); a cis/trans bond losing a reference atom loses its stereo. */
export function subgraph<A extends GraphAtom>(g: Graph<A>, atoms: readonly number[]): Graph<A> {
  const index = new Map(atoms.map((a, i) => [a, i]));
  const bonds: GraphBond[] = [];
  for (const b of g.bonds) {
    const [x, y] = [index.get(b.begin), index.get(b.end)];
    if (x === undefined || y === undefined) continue;
    const bond: GraphBond = { ...b, begin: x, end: y };
    if (b.stereoAtoms) {
      const sa = b.stereoAtoms.map((s) => index.get(s));
      if (sa.every((s) => s !== undefined)) bond.stereoAtoms = sa;
      else {
        delete bond.stereoAtoms;
        bond.stereo = "unspecified";
      }
    }
    bonds.push(bond);
  }
  return { atoms: atoms.map((a) => ({ ...g.atoms[a]! })), bonds };
}

/** The graphs side by side, in order, as one graph. */
export function combine<A extends GraphAtom>(parts: readonly Graph<A>[]): Graph<A> {
  const out: Graph<A> = { atoms: [], bonds: [] };
  for (const p of parts) {
    const offset = out.atoms.length;
    out.atoms.push(...p.atoms.map((a) => ({ ...a })));
    for (const b of p.bonds) out.bonds.push(copyBond(b, (i) => i + offset));
  }
  return out;
}
