/**
 * Standardisation to a parent structure, on top of RDKit MinimalLib (which has no standardiser API):
 *
 *   1. cleanup: metal disconnection, normalisation transforms, reionisation (RDKit's rdMolStandardize.Cleanup);
 *   2. salt and solvent stripping with RDKit's salt list (Data/Salts.txt, as rdkit.Chem.SaltRemover with
 *      dontRemoveEverything: a pattern that would remove every fragment is skipped);
 *   3. the largest fragment, organic ones first (rdMolStandardize.LargestFragmentChooser(preferOrganic=True):
 *      most atoms counting hydrogens, then exact mass, then SMILES);
 *   4. charge neutralisation (rdMolStandardize.Uncharger), then cleanup again.
 *
 * Without step 2 this is rdMolStandardize.ChargeParent. The rules and tables below are those of RDKit's
 * MolStandardize (Release 2022.09), a C++ port by Susan Leung of MolVS (Matt Swain, molvs.readthedocs.io);
 * the acid/base pairs derive from the FDA Substance Registration System standard operating procedure.
 * The code is ours: it edits the molecule as a graph (RDKit's MolJSON) and uses MinimalLib for SMARTS
 * matching, reactions (the normalisation transforms), sanitisation and canonical SMILES.
 *
 * Hydrogens: every atom carries a total hydrogen count. RDKit recomputes the implicit hydrogens of atoms
 * written without brackets in the SMILES after metal disconnection; that is modelled with RDKit's valence
 * rules (implicitHydrogens); every other step sets hydrogen counts explicitly, as RDKit does.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../assets.js";
import { ToolError } from "../errors.js";
import type { RDKit, RDKitMol } from "./rdkit.js";

// ---------------------------------------------------------------------------------------------------------
// Published rule tables (RDKit MolStandardize, Release 2022.09: Normalize defaults, AcidBaseCatalog defaults,
// Charge.cpp, Metal.cpp, Atom.cpp). MolVS documents the same normalisations and acid/base pairs.

/** Normalisation transforms, applied in this order (name, reaction SMARTS). */
export const NORMALIZATIONS: readonly (readonly [string, string])[] = [
  ["Nitro to N+(O-)=O", "[N,P,As,Sb;X3:1](=[O,S,Se,Te:2])=[O,S,Se,Te:3]>>[*+1:1]([*-1:2])=[*:3]"],
  ["Sulfone to S(=O)(=O)", "[S+2:1]([O-:2])([O-:3])>>[S+0:1](=[O-0:2])(=[O-0:3])"],
  ["Pyridine oxide to n+O-", "[nH0+0:1]=[OH0+0:2]>>[n+:1][O-:2]"],
  ["Azide to N=N+=N-", "[*:1][N:2]=[N:3]#[N:4]>>[*:1][N:2]=[N+:3]=[N-:4]"],
  ["Diazo/azo to =N+=N-", "[*:1]=[N:2]#[N:3]>>[*:1]=[N+:2]=[N-:3]"],
  ["Sulfoxide to -S+(O-)-", "[!O:1][S+0;X3:2](=[O:3])[!O:4]>>[*:1][S+1:2]([O-:3])[*:4]"],
  ["Phosphate to P(O-)=O", "[O,S,Se,Te;-1:1][P+;D4:2][O,S,Se,Te;-1:3]>>[*+0:1]=[P+0;D5:2][*-1:3]"],
  ["C/S+N to C/S=N+", "[C,S&!$([S+]-[O-]);X3+1:1]([NX3:2])[NX3!H0:3]>>[*+0:1]([N:2])=[N+:3]"],
  ["P+N to P=N+", "[P;X4+1:1]([NX3:2])[NX3!H0:3]>>[*+0:1]([N:2])=[N+:3]"],
  ["Normalize hydrazine-diazonium", "[CX4:1][NX3H:2]-[NX3H:3][CX4:4][NX2+:5]#[NX1:6]>>[CX4:1][NH0:2]=[NH+:3][C:4][N+0:5]=[NH:6]"],
  ["Recombine 1,3-separated charges", "[N,P,As,Sb,O,S,Se,Te;-1:1]-[A+0:2]=[N,P,As,Sb,O,S,Se,Te;+1:3]>>[*-0:1]=[*:2]-[*+0:3]"],
  ["Recombine 1,3-separated charges", "[n,o,p,s;-1:1]:[a:2]=[N,O,P,S;+1:3]>>[*-0:1]:[*:2]-[*+0:3]"],
  ["Recombine 1,3-separated charges", "[N,O,P,S;-1:1]-[a:2]:[n,o,p,s;+1:3]>>[*-0:1]=[*:2]:[*+0:3]"],
  ["Recombine 1,5-separated charges", "[N,P,As,Sb,O,S,Se,Te;-1:1]-[A+0:2]=[A:3]-[A:4]=[N,P,As,Sb,O,S,Se,Te;+1:5]>>[*-0:1]=[*:2]-[*:3]=[*:4]-[*+0:5]"],
  ["Recombine 1,5-separated charges", "[n,o,p,s;-1:1]:[a:2]:[a:3]:[c:4]=[N,O,P,S;+1:5]>>[*-0:1]:[*:2]:[*:3]:[c:4]-[*+0:5]"],
  ["Recombine 1,5-separated charges", "[N,O,P,S;-1:1]-[c:2]:[a:3]:[a:4]:[n,o,p,s;+1:5]>>[*-0:1]=[c:2]:[*:3]:[*:4]:[*+0:5]"],
  ["Normalize 1,3 conjugated cation", "[N,O;+0!H0:1]-[A:2]=[N!$(*[O-]),O;+1H0:3]>>[*+1:1]=[*:2]-[*+0:3]"],
  ["Normalize 1,3 conjugated cation", "[n;+0!H0:1]:[c:2]=[N!$(*[O-]),O;+1H0:3]>>[*+1:1]:[*:2]-[*+0:3]"],
  ["Normalize 1,5 conjugated cation", "[N,O;+0!H0:1]-[A:2]=[A:3]-[A:4]=[N!$(*[O-]),O;+1H0:5]>>[*+1:1]=[*:2]-[*:3]=[*:4]-[*+0:5]"],
  ["Normalize 1,5 conjugated cation", "[n;+0!H0:1]:[a:2]:[a:3]:[c:4]=[N!$(*[O-]),O;+1H0:5]>>[n+1:1]:[*:2]:[*:3]:[*:4]-[*+0:5]"],
  ["Charge normalization", "[F,Cl,Br,I,At;-1:1]=[O:2]>>[*-0:1][O-:2]"],
  ["Charge recombination", "[N,P,As,Sb;-1:1]=[C+;v3:2]>>[*+0:1]#[C+0:2]"],
];

/** Acid/base pairs, strongest acid first (name, acid SMARTS, conjugate base SMARTS). */
export const ACID_BASE_PAIRS: readonly (readonly [string, string, string])[] = [
  ["-OSO3H", "OS(=O)(=O)[OH]", "OS(=O)(=O)[O-]"],
  ["-SO3H", "[!O]S(=O)(=O)[OH]", "[!O]S(=O)(=O)[O-]"],
  ["-OSO2H", "O[SD3](=O)[OH]", "O[SD3](=O)[O-]"],
  ["-SO2H", "[!O][SD3](=O)[OH]", "[!O][SD3](=O)[O-]"],
  ["-OPO3H2", "OP(=O)([OH])[OH]", "OP(=O)([OH])[O-]"],
  ["-PO3H2", "[!O]P(=O)([OH])[OH]", "[!O]P(=O)([OH])[O-]"],
  ["-CO2H", "C(=O)[OH]", "C(=O)[O-]"],
  ["thiophenol", "c[SH]", "c[S-]"],
  ["(-OPO3H)-", "OP(=O)([O-])[OH]", "OP(=O)([O-])[O-]"],
  ["(-PO3H)-", "[!O]P(=O)([O-])[OH]", "[!O]P(=O)([O-])[O-]"],
  ["phthalimide", "O=C2c1ccccc1C(=O)[NH]2", "O=C2c1ccccc1C(=O)[N-]2"],
  ["CO3H (peracetyl)", "C(=O)O[OH]", "C(=O)O[O-]"],
  ["alpha-carbon-hydrogen-nitro group", "O=N(O)[CH]", "O=N(O)[C-]"],
  ["-SO2NH2", "S(=O)(=O)[NH2]", "S(=O)(=O)[NH-]"],
  ["-OBO2H2", "OB([OH])[OH]", "OB([OH])[O-]"],
  ["-BO2H2", "[!O]B([OH])[OH]", "[!O]B([OH])[O-]"],
  ["phenol", "c[OH]", "c[O-]"],
  ["SH (aliphatic)", "C[SH]", "C[S-]"],
  ["(-OBO2H)-", "OB([O-])[OH]", "OB([O-])[O-]"],
  ["(-BO2H)-", "[!O]B([O-])[OH]", "[!O]B([O-])[O-]"],
  ["cyclopentadiene", "C1=CC=C[CH2]1", "c1ccc[cH-]1"],
  ["-CONH2", "C(=O)[NH2]", "C(=O)[NH-]"],
  ["imidazole", "c1cnc[nH]1", "c1cnc[n-]1"],
  ["-OH (aliphatic alcohol)", "[CX4][OH]", "[CX4][O-]"],
  ["alpha-carbon-hydrogen-keto group", "O=C([!O])[C!H0+0]", "O=C([!O])[C-]"],
  ["alpha-carbon-hydrogen-acetyl ester group", "OC(=O)[C!H0+0]", "OC(=O)[C-]"],
  ["sp carbon hydrogen", "C#[CH]", "C#[C-]"],
  ["alpha-carbon-hydrogen-sulfone group", "CS(=O)(=O)[C!H0+0]", "CS(=O)(=O)[C-]"],
  ["alpha-carbon-hydrogen-sulfoxide group", "C[SD3](=O)[C!H0+0]", "C[SD3](=O)[C-]"],
  ["-NH2", "[CX4][NH2]", "[CX4][NH-]"],
  ["benzyl hydrogen", "c[CX4H2]", "c[CX3H-]"],
  ["sp2-carbon hydrogen", "[CX3]=[CX3!H0+0]", "[CX3]=[CX2-]"],
  ["sp3-carbon hydrogen", "[CX4!H0+0]", "[CX3-]"],
];

/** Reionizer charge corrections: free (unbonded) neutral metal or chlorine atoms get their ionic charge. */
const CHARGE_CORRECTIONS: readonly { elements: readonly number[]; charge: number }[] = [
  { elements: [3, 11, 19], charge: 1 },
  { elements: [12, 20], charge: 2 },
  { elements: [17], charge: -1 },
];

/** Uncharger queries. */
const POS_H = "[+,+2,+3,+4;!h0;!$(*~[-]),$(*(~[-])~[-])]";
const POS_NOH = "[+,+2,+3,+4;h0;!$(*~[-]),$(*(~[-])~[-])]";
const NEG = "[-!$(*~[+,+2,+3,+4])]";
const NEG_ACID = "[$([O,S;-][C,S;+0]=[O,S]),$([O,S;-][N,P;+](=[O,S])[O,S;-]),$([O-][Cl,Br,I;+,+2,+3][O-]),$([n-]1nnnc1),$([n-]1ncnn1)]";

const sym = (list: string) => list.split(",");
const ELEMENTS = [
  "H",
  "He",
  "Li",
  "Be",
  "B",
  "C",
  "N",
  "O",
  "F",
  "Ne",
  "Na",
  "Mg",
  "Al",
  "Si",
  "P",
  "S",
  "Cl",
  "Ar",
  "K",
  "Ca",
  "Sc",
  "Ti",
  "V",
  "Cr",
  "Mn",
  "Fe",
  "Co",
  "Ni",
  "Cu",
  "Zn",
  "Ga",
  "Ge",
  "As",
  "Se",
  "Br",
  "Kr",
  "Rb",
  "Sr",
  "Y",
  "Zr",
  "Nb",
  "Mo",
  "Tc",
  "Ru",
  "Rh",
  "Pd",
  "Ag",
  "Cd",
  "In",
  "Sn",
  "Sb",
  "Te",
  "I",
  "Xe",
  "Cs",
  "Ba",
  "La",
  "Ce",
  "Pr",
  "Nd",
  "Pm",
  "Sm",
  "Eu",
  "Gd",
  "Tb",
  "Dy",
  "Ho",
  "Er",
  "Tm",
  "Yb",
  "Lu",
  "Hf",
  "Ta",
  "W",
  "Re",
  "Os",
  "Ir",
  "Pt",
  "Au",
  "Hg",
  "Tl",
  "Pb",
  "Bi",
  "Po",
  "At",
  "Rn",
  "Fr",
  "Ra",
];
const atomicNumbers = (list: string) => new Set(sym(list).map((s) => ELEMENTS.indexOf(s) + 1));
/** Metals disconnected from N, O, F (MetalDisconnector metal_nof). */
const METALS_NOF = atomicNumbers(
  "Li,Na,K,Rb,Cs,Fr,Be,Mg,Ca,Sr,Ba,Ra,Sc,Ti,V,Cr,Mn,Fe,Co,Ni,Cu,Zn,Al,Ga,Y,Zr,Nb,Mo,Tc,Ru,Rh,Pd,Ag,Cd,In,Sn,Hf,Ta,W,Re,Os,Ir,Pt,Au,Hg,Tl,Pb,Bi",
);
/** Metals disconnected from other non-metals (metal_non). */
const METALS_NON = atomicNumbers("Al,Sc,Ti,V,Cr,Mn,Fe,Co,Ni,Cu,Zn,Y,Zr,Nb,Mo,Tc,Ru,Rh,Pd,Ag,Cd,Hf,Ta,W,Re,Os,Ir,Pt,Au");
const NOF = new Set([7, 8, 9]);
/** [B,C,Si,P,As,Sb,S,Se,Te,Cl,Br,I,At]: aliphatic atoms of these elements (SMARTS symbols without #). */
const NON_METALS_NON = atomicNumbers("B,C,Si,P,As,Sb,S,Se,Te,Cl,Br,I,At");

/** RDKit's isEarlyAtom (Atom.cpp, 2022.09): elements left of carbon, whose charge counts the other way for hydrogens. */
const EARLY_ATOMS = new Set([
  3, 4, 5, 11, 12, 13, 19, 20, 21, 22, 30, 31, 32, 37, 38, 39, 40, 41, 48, 49, 50, 51, 55, 56, 57, 58, 59, 60, 61, 72, 73, 80, 81, 82, 83, 87, 88, 89, 90, 91,
  92, 93, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118,
]);

export function elementSymbol(z: number): string {
  return ELEMENTS[z - 1] ?? (z === 0 ? "*" : `#${z}`);
}

interface SaltEntry {
  smarts: string;
  name?: string;
}
interface StandardizeData {
  salts: SaltEntry[];
  valence_lists: Record<string, number[]>;
}
let data: StandardizeData | undefined;
function standardizeData(): StandardizeData {
  data ??= JSON.parse(readFileSync(assetPath("standardize-data.json"), "utf8")) as StandardizeData;
  return data;
}

/** Names for the unnamed entries of Salts.txt (our labels; the patterns are RDKit's). */
const SALT_LABELS: Record<string, string> = {
  "[Cl,Br,I]": "halide",
  "[Li,Na,K,Ca,Mg]": "alkali or alkaline-earth metal ion",
  "[O,N]": "water, hydroxide or ammonia",
  "[N](=O)(O)O": "nitrate / nitric acid",
  "[P](=O)(O)(O)O": "phosphate / phosphoric acid",
  "[P](F)(F)(F)(F)(F)F": "hexafluorophosphate",
  "[S](=O)(=O)(O)O": "sulfate / sulfuric acid",
  "[CH3][S](=O)(=O)(O)": "mesylate / methanesulfonic acid",
};

function valenceList(z: number): number[] {
  return standardizeData().valence_lists[String(z)] ?? [-1];
}

// ---------------------------------------------------------------------------------------------------------
// The molecule as an editable graph (RDKit MolJSON fields).

export interface GAtom {
  z: number;
  chg: number;
  /** Total hydrogens on the atom. */
  hs: number;
  nRad: number;
  isotope: number;
  stereo: string;
  /** RDKit's noImplicit: the hydrogen count is fixed (bracket atoms); otherwise RDKit recomputes it. */
  noImplicit: boolean;
  aromatic: boolean;
}
export interface GBond {
  a: number;
  b: number;
  /** RDKit bond type as MolJSON writes it: 0 zero, 1-3, 17 dative (a -> b). */
  bo: number;
  stereo: string;
  stereoAtoms?: number[];
}
export interface Graph {
  atoms: GAtom[];
  bonds: GBond[];
}

interface JsonMol {
  atoms: Record<string, unknown>[];
  bonds?: Record<string, unknown>[];
  extensions?: { name?: string; aromaticAtoms?: number[] }[];
}

const ATOM_DEFAULTS = { z: 6, impHs: 0, chg: 0, nRad: 0, isotope: 0, stereo: "unspecified" };
const BOND_DEFAULTS = { bo: 1, stereo: "unspecified" };

/** The molecule of `mol` as a graph; `noImplicit[i]` (default true) marks bracket atoms. */
export function graphOf(mol: RDKitMol, noImplicit?: readonly boolean[]): Graph {
  const json = JSON.parse(mol.get_json()) as { defaults?: { atom?: Record<string, unknown>; bond?: Record<string, unknown> }; molecules: JsonMol[] };
  const m = json.molecules[0] ?? { atoms: [] };
  const da = { ...ATOM_DEFAULTS, ...(json.defaults?.atom ?? {}) } as Record<string, unknown>;
  const db = { ...BOND_DEFAULTS, ...(json.defaults?.bond ?? {}) } as Record<string, unknown>;
  const aromatic = new Set(m.extensions?.find((e) => e.name === "rdkitRepresentation")?.aromaticAtoms ?? []);
  const atoms = m.atoms.map((raw, i) => {
    const a = { ...da, ...raw } as Record<string, unknown>;
    return {
      z: a.z as number,
      chg: a.chg as number,
      hs: a.impHs as number,
      nRad: a.nRad as number,
      isotope: a.isotope as number,
      stereo: a.stereo as string,
      noImplicit: noImplicit?.[i] ?? true,
      aromatic: aromatic.has(i),
    };
  });
  const bonds = (m.bonds ?? []).map((raw) => {
    const b = { ...db, ...raw } as Record<string, unknown>;
    const [x, y] = b.atoms as [number, number];
    const bond: GBond = { a: x, b: y, bo: b.bo as number, stereo: b.stereo as string };
    if (Array.isArray(b.stereoAtoms)) bond.stereoAtoms = [...(b.stereoAtoms as number[])];
    return bond;
  });
  return { atoms, bonds };
}

/** MolJSON of the graph (aromaticity left to RDKit's perception). */
export function graphJson(g: Graph): string {
  const atoms = g.atoms.map((a) => ({ z: a.z, impHs: a.hs, chg: a.chg, nRad: a.nRad, isotope: a.isotope, stereo: a.stereo }));
  const bonds = g.bonds.map((b) => {
    const out: Record<string, unknown> = { bo: b.bo, atoms: [b.a, b.b], stereo: b.stereo };
    if (b.stereoAtoms) out.stereoAtoms = b.stereoAtoms;
    return out;
  });
  return JSON.stringify({ rdkitjson: { version: 11 }, defaults: { atom: ATOM_DEFAULTS, bond: BOND_DEFAULTS }, molecules: [{ atoms, bonds }] });
}

/** The graph as an RDKit molecule (caller deletes), or null when RDKit rejects it (e.g. a valence error). */
export function molOf(rdkit: RDKit, g: Graph): RDKitMol | null {
  const mol = rdkit.get_mol(graphJson(g));
  if (mol === null) return null;
  if (!mol.is_valid()) {
    mol.delete();
    return null;
  }
  return mol;
}

function withGraphMol<T>(rdkit: RDKit, g: Graph, fn: (mol: RDKitMol) => T): T | undefined {
  const mol = molOf(rdkit, g);
  if (mol === null) return undefined;
  try {
    return fn(mol);
  } finally {
    mol.delete();
  }
}

function cloneGraph(g: Graph): Graph {
  return { atoms: g.atoms.map((a) => ({ ...a })), bonds: g.bonds.map((b) => ({ ...b, ...(b.stereoAtoms ? { stereoAtoms: [...b.stereoAtoms] } : {}) })) };
}

/** Connected components, numbered by their lowest atom index; each lists its atoms in index order. */
export function fragments(g: Graph): number[][] {
  const parent = g.atoms.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for (const b of g.bonds) {
    const [x, y] = [find(b.a), find(b.b)];
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

/** The part of the graph on `atoms` (kept in the given order). */
export function subgraph(g: Graph, atoms: readonly number[]): Graph {
  const index = new Map(atoms.map((a, i) => [a, i]));
  const bonds: GBond[] = [];
  for (const b of g.bonds) {
    const [x, y] = [index.get(b.a), index.get(b.b)];
    if (x === undefined || y === undefined) continue;
    const bond: GBond = { ...b, a: x, b: y };
    if (b.stereoAtoms) {
      const sa = b.stereoAtoms.map((s) => index.get(s));
      if (sa.every((s) => s !== undefined)) bond.stereoAtoms = sa as number[];
      else {
        delete bond.stereoAtoms;
        bond.stereo = "unspecified";
      }
    }
    bonds.push(bond);
  }
  return { atoms: atoms.map((a) => ({ ...g.atoms[a]! })), bonds };
}

export function combine(parts: readonly Graph[]): Graph {
  const out: Graph = { atoms: [], bonds: [] };
  for (const p of parts) {
    const offset = out.atoms.length;
    out.atoms.push(...p.atoms.map((a) => ({ ...a })));
    for (const b of p.bonds) {
      const bond: GBond = { ...b, a: b.a + offset, b: b.b + offset };
      if (b.stereoAtoms) bond.stereoAtoms = b.stereoAtoms.map((s) => s + offset);
      out.bonds.push(bond);
    }
  }
  return out;
}

/** A bond's contribution to an atom's valence, as RDKit counts it (a dative bond counts for its acceptor only). */
function valenceContribution(b: GBond, atom: number): number {
  if (b.bo === 17) return atom === b.b ? 1 : 0;
  return b.bo === 0 ? 0 : b.bo;
}

function explicitValence(g: Graph, atom: number, withHs: number): number {
  let v = withHs;
  for (const b of g.bonds) if (b.a === atom || b.b === atom) v += valenceContribution(b, atom);
  return v;
}

function degree(g: Graph, atom: number): number {
  let d = 0;
  for (const b of g.bonds) if (b.a === atom || b.b === atom) d++;
  return d;
}

/**
 * Implicit hydrogens RDKit gives an atom whose hydrogen count is not fixed (Atom::calcImplicitValence,
 * non-strict): the smallest allowed valence (shifted by the charge) that covers the explicit valence.
 */
export function implicitHydrogens(g: Graph, atom: number): number {
  const a = g.atoms[atom]!;
  if (a.z === 0) return 0;
  const explicit = explicitValence(g, atom, 0) + a.nRad;
  if (a.z === 1 && explicit === a.nRad && a.nRad === 0) return a.chg === 0 ? 1 : 0;
  const valences = valenceList(a.z);
  const dv = valences[0] ?? -1;
  if (dv === -1) return 0;
  let chg = a.chg;
  if (EARLY_ATOMS.has(a.z)) chg = -chg;
  if (a.z === 6 && chg > 0) chg = -chg;
  if (a.aromatic) return explicit <= dv + chg ? dv + chg - explicit : 0;
  for (const v of valences) {
    if (v < 0) break;
    if (explicit <= v + chg) return v + chg - explicit;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------------------
// Bracket atoms of a SMILES (RDKit's noImplicit), in atom order.

/**
 * For each atom RDKit builds from `smiles`, whether it was written in brackets (its hydrogen count is then
 * fixed). Plain [H] atoms, which RDKit folds into their neighbour, are skipped. Undefined when the count
 * does not match `atomCount` (then every hydrogen count is treated as fixed).
 */
export function bracketAtoms(smiles: string, atomCount: number): boolean[] | undefined {
  const s = smiles.trim().split(/\s/)[0] ?? "";
  const flags: boolean[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "[") {
      const end = s.indexOf("]", i);
      if (end < 0) return undefined;
      const body = s.slice(i + 1, end);
      i = end;
      if (/^H(:\d+)?$/.test(body)) continue; // a plain hydrogen atom: removed by RDKit's RemoveHs
      flags.push(true);
    } else if (c === "%") {
      i += s[i + 1] === "(" ? s.indexOf(")", i) - i : 2;
    } else if (/[BCNOPSFI]/.test(c)) {
      if ((c === "C" && s[i + 1] === "l") || (c === "B" && s[i + 1] === "r")) i++;
      flags.push(false);
    } else if (/[bcnops*]/.test(c)) {
      flags.push(false);
    }
  }
  return flags.length === atomCount ? flags : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Compiled queries, once per RDKit module (never deleted).

interface Queries {
  normalizations: { name: string; reactant: RDKitMol; rxn: ReturnType<RDKit["get_rxn"]> }[];
  acids: RDKitMol[];
  bases: RDKitMol[];
  posH: RDKitMol;
  posNoH: RDKitMol;
  neg: RDKitMol;
  negAcid: RDKitMol;
  salts: { query: RDKitMol; atoms: number; entry: SaltEntry }[];
}
const queryCache = new WeakMap<RDKit, Queries>();

function qmol(rdkit: RDKit, smarts: string): RDKitMol {
  const q = rdkit.get_qmol(smarts);
  if (q === null || !q.is_valid()) throw new Error(`standardize: SMARTS does not compile: ${smarts}`);
  return q;
}

function queries(rdkit: RDKit): Queries {
  let q = queryCache.get(rdkit);
  if (q !== undefined) return q;
  q = {
    normalizations: NORMALIZATIONS.map(([name, smarts]) => {
      const rxn = rdkit.get_rxn(smarts);
      if (rxn === null) throw new Error(`standardize: reaction does not compile: ${smarts}`);
      return { name, reactant: qmol(rdkit, smarts.split(">>")[0]!), rxn };
    }),
    acids: ACID_BASE_PAIRS.map(([, acid]) => qmol(rdkit, acid)),
    bases: ACID_BASE_PAIRS.map(([, , base]) => qmol(rdkit, base)),
    posH: qmol(rdkit, POS_H),
    posNoH: qmol(rdkit, POS_NOH),
    neg: qmol(rdkit, NEG),
    negAcid: qmol(rdkit, NEG_ACID),
    salts: standardizeData().salts.map((entry) => {
      const query = qmol(rdkit, entry.smarts);
      return { query, atoms: query.get_num_atoms(), entry };
    }),
  };
  queryCache.set(rdkit, q);
  return q;
}

function firstMatch(mol: RDKitMol, query: RDKitMol): number[] | undefined {
  const m = JSON.parse(mol.get_substruct_match(query)) as { atoms?: number[] };
  return m.atoms && m.atoms.length > 0 ? m.atoms : undefined;
}

function allMatches(mol: RDKitMol, query: RDKitMol): number[][] {
  const parsed = JSON.parse(mol.get_substruct_matches(query, JSON.stringify({ maxMatches: 1000 }))) as unknown;
  return Array.isArray(parsed) ? parsed.map((m) => (m as { atoms: number[] }).atoms) : [];
}

// ---------------------------------------------------------------------------------------------------------
// Steps. Each returns the new graph and what it changed.

export interface Change {
  step: "metal_disconnection" | "normalization" | "reionization" | "salt_stripping" | "largest_fragment" | "neutralization";
  description: string;
  removed?: string[];
}

/** MetalDisconnector: breaks metal-N/O/F and (transition) metal-non-metal bonds and sets charges. */
function disconnectMetals(g0: Graph): { graph: Graph; changes: Change[] } {
  const g = cloneGraph(g0);
  const cut: { metal: number; other: number; order: number; bond: GBond }[] = [];
  // First the metal-N/O/F bonds, then metal-non-metal bonds (the two queries of RDKit, in that order).
  const isNof = (metal: GAtom, other: GAtom) => METALS_NOF.has(metal.z) && NOF.has(other.z);
  const isNon = (metal: GAtom, other: GAtom) => METALS_NON.has(metal.z) && NON_METALS_NON.has(other.z) && !other.aromatic;
  for (const pass of [isNof, isNon]) {
    for (const b of g.bonds) {
      if (cut.some((c) => c.bond === b)) continue;
      const [x, y] = [g.atoms[b.a]!, g.atoms[b.b]!];
      let metal = -1;
      if (pass(x, y)) metal = b.a;
      else if (pass(y, x)) metal = b.b;
      if (metal < 0) continue;
      const other = metal === b.a ? b.b : b.a;
      cut.push({ metal, other, order: b.bo === 17 || b.bo === 0 ? 0 : b.bo, bond: b });
    }
  }
  if (cut.length === 0) return { graph: g0, changes: [] };
  const cutBonds = new Set(cut.map((c) => c.bond));
  // Valences before the cut, as RDKit's cached values are.
  const before = g.atoms.map((a, i) => explicitValence(g, i, a.hs));
  g.bonds = g.bonds.filter((b) => !cutBonds.has(b));

  const excess = new Map<number, number>();
  const nonMetals = new Map<number, { cutBonds: number; metals: number[] }>();
  for (const c of cut) {
    excess.set(c.metal, 0);
    const entry = nonMetals.get(c.other) ?? { cutBonds: 0, metals: [] };
    entry.cutBonds += c.order;
    if (!entry.metals.includes(c.metal)) {
      entry.metals.push(c.metal);
      entry.metals.sort((p, q) => p - q);
    }
    nonMetals.set(c.other, entry);
  }
  for (const [idx, info] of [...nonMetals.entries()].sort((p, q) => p[0] - q[0])) {
    const a = g.atoms[idx]!;
    const valenceBefore = before[idx]!;
    const radBefore = a.nRad;
    let fc = -info.cutBonds;
    let valenceAfter = 0;
    let lone = 0;
    const valences = valenceList(a.z);
    if (valences.length > 0 && valences[0] !== -1) {
      for (let k = 0; k < valences.length; k++) {
        const v = valences[k]!;
        valenceAfter = valenceBefore + radBefore - info.cutBonds;
        if (valenceAfter > v) {
          if (k + 1 < valences.length) continue;
          valenceAfter = v;
          break;
        }
        fc = valenceAfter - v;
        if (radBefore % 2 === 1 && fc < 0) {
          fc++;
          lone++;
          a.nRad = a.z < 7 ? radBefore + 1 : 0;
        }
        break;
      }
    }
    const totalDegree = degree(g, idx) + a.hs;
    if (fc === -1 && valenceAfter === totalDegree + 1) fc = 0;
    a.chg = fc;
    if (info.cutBonds === 0 || (fc === -1 && a.z === 6 && valenceAfter === totalDegree + 2)) fc = 0;
    info.metals.sort((p, q) => excess.get(p)! - excess.get(q)!);
    fc += lone;
    while (fc < 0) {
      for (const m of info.metals) {
        if (fc++ >= 0) break;
        excess.set(m, excess.get(m)! + 1);
      }
    }
    if (!a.noImplicit) a.hs = implicitHydrogens(g, idx);
  }
  for (const [idx, ex] of [...excess.entries()].sort((p, q) => p[0] - q[0])) {
    const a = g.atoms[idx]!;
    const current = a.chg;
    let fc = ex;
    if (current > 0) fc += current;
    const valences = valenceList(a.z);
    if (valences.length > 0 && valences[0] !== -1) {
      for (let k = 0; k < valences.length; k++) {
        const v = valences[k]!;
        if (fc > v) {
          if (k + 1 < valences.length && fc >= v) continue;
          fc = v;
          break;
        }
      }
    }
    if (fc > current) a.chg = fc;
    a.nRad = 0;
    a.noImplicit = false;
    a.hs = implicitHydrogens(g, idx);
  }
  const pairs = cut.map((c) => `${elementSymbol(g.atoms[c.metal]!.z)}-${elementSymbol(g.atoms[c.other]!.z)}`);
  const counts = new Map<string, number>();
  for (const p of pairs) counts.set(p, (counts.get(p) ?? 0) + 1);
  const what = [...counts.entries()].map(([p, n]) => (n > 1 ? `${n} ${p}` : p)).join(", ");
  return { graph: g, changes: [{ step: "metal_disconnection", description: `Disconnected metal bonds (${what}) and set the ionic charges` }] };
}

/** Canonical SMILES of a graph (null when RDKit rejects it). */
export function smilesOf(rdkit: RDKit, g: Graph): string | null {
  return withGraphMol(rdkit, g, (m) => m.get_smiles()) ?? null;
}

/**
 * Applies one transform until it no longer changes the molecule (at most 20 times), like RDKit's
 * applyTransform: each round runs the reaction on every match and keeps the product whose canonical
 * SMILES sorts first. The product molecule is owned by the caller.
 */
function applyTransform(rdkit: RDKit, mol: RDKitMol, t: Queries["normalizations"][number]): { smiles: string; mol: RDKitMol } | undefined {
  let current: { smiles: string; mol: RDKitMol } | undefined;
  let input = mol;
  for (let i = 0; i < 20; i++) {
    if (firstMatch(input, t.reactant) === undefined) break;
    const reactants = new rdkit.MolList();
    let products: ReturnType<NonNullable<typeof t.rxn>["run_reactants"]> | undefined;
    let best: { smiles: string; mol: RDKitMol } | undefined;
    try {
      reactants.append(input);
      products = t.rxn!.run_reactants(reactants, 1000);
      for (let k = 0; k < products.size(); k++) {
        const list = products.get(k);
        if (!list) continue;
        try {
          const p = list.size() > 0 ? list.at(0) : null;
          if (p === null) continue;
          const smiles = p.is_valid() ? p.get_smiles() : "";
          if (smiles !== "" && (best === undefined || smiles < best.smiles)) {
            best?.mol.delete();
            best = { smiles, mol: p };
          } else {
            p.delete();
          }
        } finally {
          list.delete();
        }
      }
    } finally {
      products?.delete();
      reactants.delete();
    }
    if (best === undefined) break;
    // Re-read the chosen product from MolJSON: a clean, sanitised molecule with fixed hydrogen counts.
    const clean = rdkit.get_mol(best.mol.get_json());
    best.mol.delete();
    if (clean === null) break;
    if (!clean.is_valid()) {
      clean.delete();
      break;
    }
    current?.mol.delete();
    current = { smiles: best.smiles, mol: clean };
    input = clean;
  }
  return current;
}

/** Normalizer: each fragment on its own, transforms in order, restarting after each change (at most 200 times). */
function normalize(rdkit: RDKit, g: Graph): { graph: Graph; changes: Change[] } {
  const q = queries(rdkit);
  const frags = fragments(g).map((atoms) => subgraph(g, atoms));
  const out: Graph[] = [];
  const applied: string[] = [];
  for (const frag of frags) {
    let mol = molOf(rdkit, frag);
    if (mol === null) {
      out.push(frag);
      continue;
    }
    let changed = false;
    const seen = new Set<string>();
    try {
      for (let restart = 0; restart < 200; restart++) {
        let hit = false;
        for (const t of q.normalizations) {
          const product = applyTransform(rdkit, mol, t);
          if (product === undefined) continue;
          if (seen.has(product.smiles)) {
            product.mol.delete();
            continue;
          }
          seen.add(product.smiles);
          mol.delete();
          mol = product.mol;
          applied.push(t.name);
          changed = true;
          hit = true;
          break;
        }
        if (!hit) break;
      }
      // A reaction product has its own atom order; its hydrogen counts are fixed from here on.
      out.push(changed ? graphOf(mol) : frag);
    } finally {
      mol.delete();
    }
  }
  // RDKit recombines the fragments last first: [n-1, 0, 1, ..., n-2].
  const ordered = out.length > 1 ? [out[out.length - 1]!, ...out.slice(0, -1)] : out;
  const changes: Change[] = [...new Set(applied)].map((name) => ({ step: "normalization", description: `Normalised: ${name}` }));
  return { graph: combine(ordered), changes };
}

function netCharge(g: Graph): number {
  return g.atoms.reduce((s, a) => s + a.chg, 0);
}

/** Reionizer: charge corrections, then protons moved from the strongest acid to the weakest ionised one. */
function reionize(rdkit: RDKit, g0: Graph): { graph: Graph; changes: Change[] } {
  const q = queries(rdkit);
  const g = cloneGraph(g0);
  const changes: Change[] = [];
  const startCharge = netCharge(g);
  for (const cc of CHARGE_CORRECTIONS) {
    for (let i = 0; i < g.atoms.length; i++) {
      const a = g.atoms[i]!;
      // SMARTS X0+0: no bonds and no hydrogens, neutral.
      if (cc.elements.includes(a.z) && a.chg === 0 && a.hs === 0 && degree(g, i) === 0) {
        a.chg = cc.charge;
        changes.push({ step: "reionization", description: `Charge correction: ${elementSymbol(a.z)} set to ${cc.charge > 0 ? "+" : ""}${cc.charge}` });
      }
    }
  }
  const strongestProtonated = (mol: RDKitMol): [number, number[]] | undefined => {
    for (let k = 0; k < q.acids.length; k++) {
      const m = firstMatch(mol, q.acids[k]!);
      if (m) return [k, m];
    }
    return undefined;
  };
  const weakestIonized = (mol: RDKitMol): [number, number[]] | undefined => {
    for (let k = q.bases.length - 1; k >= 0; k--) {
      const m = firstMatch(mol, q.bases[k]!);
      if (m) return [k, m];
    }
    return undefined;
  };
  const current = netCharge(g);
  let diff = current - startCharge;
  if (current !== 0) {
    while (diff > 0) {
      const hit = withGraphMol(rdkit, g, strongestProtonated);
      if (hit === undefined) break;
      const p = g.atoms[hit[1][hit[1].length - 1]!]!;
      p.chg -= 1;
      if (p.hs > 0) p.hs -= 1;
      changes.push({ step: "reionization", description: `Ionised ${ACID_BASE_PAIRS[hit[0]]![0]} to balance the charge corrections` });
      diff--;
    }
  }
  const moved = new Set<string>();
  for (;;) {
    const found = withGraphMol(rdkit, g, (mol) => [strongestProtonated(mol), weakestIonized(mol)] as const);
    if (found === undefined) break;
    const [sp, wi] = found;
    if (sp === undefined || wi === undefined || !(sp[0] < wi[0])) break;
    const pIdx = sp[1][sp[1].length - 1]!;
    const iIdx = wi[1][wi[1].length - 1]!;
    if (pIdx === iIdx) break;
    const key = `${Math.min(pIdx, iIdx)}-${Math.max(pIdx, iIdx)}`;
    if (moved.has(key)) break;
    moved.add(key);
    const p = g.atoms[pIdx]!;
    const i = g.atoms[iIdx]!;
    p.chg -= 1;
    if (p.hs > 0) p.hs -= 1;
    i.chg += 1;
    i.hs += 1;
    changes.push({ step: "reionization", description: `Moved a proton from ${ACID_BASE_PAIRS[sp[0]]![0]} to ${ACID_BASE_PAIRS[wi[0]]![0]}` });
  }
  return { graph: changes.length > 0 ? g : g0, changes };
}

/** RDKit's Cleanup: metal disconnection, normalisation, reionisation. */
function cleanup(rdkit: RDKit, g0: Graph): { graph: Graph; changes: Change[] } {
  const m = disconnectMetals(g0);
  const n = normalize(rdkit, m.graph);
  const r = reionize(rdkit, n.graph);
  return { graph: r.graph, changes: [...m.changes, ...n.changes, ...r.changes] };
}

interface FragmentInfo {
  atoms: number[];
  graph: Graph;
  smiles: string;
  heavy: number;
  withHs: number;
  mass: number;
  organic: boolean;
}

function fragmentInfos(rdkit: RDKit, g: Graph): FragmentInfo[] {
  return fragments(g).map((atoms) => {
    const graph = subgraph(g, atoms);
    const props = withGraphMol(rdkit, graph, (m) => ({ smiles: m.get_smiles(), mass: (JSON.parse(m.get_descriptors()) as { exactmw: number }).exactmw }));
    return {
      atoms,
      graph,
      smiles: props?.smiles ?? "",
      heavy: atoms.length,
      withHs: atoms.length + graph.atoms.reduce((s, a) => s + a.hs, 0),
      mass: props?.mass ?? 0,
      organic: graph.atoms.some((a) => a.z === 6),
    };
  });
}

/** SaltRemover (dontRemoveEverything): removes whole fragments matching a salt pattern, never the last ones. */
function stripSalts(rdkit: RDKit, g: Graph): { graph: Graph; changes: Change[]; removed: RemovedFragment[] } {
  let frags = fragmentInfos(rdkit, g);
  if (frags.length <= 1) return { graph: g, changes: [], removed: [] };
  const removed: RemovedFragment[] = [];
  for (const salt of queries(rdkit).salts) {
    const hits = frags.filter((f) => f.heavy === salt.atoms && withGraphMol(rdkit, f.graph, (m) => firstMatch(m, salt.query) !== undefined) === true);
    if (hits.length === 0 || hits.length === frags.length) continue;
    frags = frags.filter((f) => !hits.includes(f));
    const label = salt.entry.name ?? SALT_LABELS[salt.entry.smarts] ?? salt.entry.smarts;
    for (const h of hits) removed.push({ smiles: h.smiles, reason: "salt_or_solvent", pattern: salt.entry.smarts, name: label });
    if (frags.length <= 1) break;
  }
  if (removed.length === 0) return { graph: g, changes: [], removed };
  const graph = combine(frags.map((f) => f.graph));
  return {
    graph,
    changes: [
      { step: "salt_stripping", description: `Removed ${removed.length} salt/solvent fragment(s) (RDKit salt list)`, removed: removed.map((r) => r.smiles) },
    ],
    removed,
  };
}

/** LargestFragmentChooser(preferOrganic): organic first, then most atoms counting hydrogens, then mass, then SMILES. */
function largestFragment(rdkit: RDKit, g: Graph): { graph: Graph; changes: Change[]; removed: RemovedFragment[] } {
  const frags = fragmentInfos(rdkit, g);
  if (frags.length <= 1) return { graph: g, changes: [], removed: [] };
  let best: FragmentInfo | undefined;
  for (const f of frags) {
    if (best !== undefined) {
      if (best.organic && !f.organic) continue;
      if (f.organic && !best.organic) best = undefined;
    }
    if (best !== undefined) {
      if (f.withHs < best.withHs) continue;
      if (f.withHs === best.withHs && f.mass < best.mass) continue;
      if (f.withHs === best.withHs && f.mass === best.mass && f.smiles > best.smiles) continue;
    }
    best = f;
  }
  const removed = frags.filter((f) => f !== best).map((f) => ({ smiles: f.smiles, reason: "smaller_fragment" as const }));
  return {
    graph: best!.graph,
    changes: [
      {
        step: "largest_fragment",
        description: `Kept the largest ${best!.organic ? "organic " : ""}fragment; removed ${removed.length} other(s)`,
        removed: removed.map((r) => r.smiles),
      },
    ],
    removed,
  };
}

export interface ChargeChange {
  element: string;
  charge_before: number;
  charge_after: number;
  hydrogens_before: number;
  hydrogens_after: number;
}

/** The order in which RDKit's canonical SMILES writes the atoms (stands in for its canonical atom ranks). */
function canonicalRanks(mol: RDKitMol): number[] {
  mol.get_smiles();
  const order = JSON.parse(mol.get_prop("_smilesAtomOutputOrder")) as number[];
  const ranks: number[] = [];
  order.forEach((atom, position) => (ranks[atom] = position));
  return ranks;
}

/** Uncharger: neutralises charges by adding or removing hydrogens, keeping zwitterions' unavoidable charges. */
function uncharge(rdkit: RDKit, g0: Graph): { graph: Graph; changes: Change[]; chargeChanges: ChargeChange[] } {
  const q = queries(rdkit);
  const g = cloneGraph(g0);
  const found = withGraphMol(rdkit, g, (mol) => {
    const pMatches = allMatches(mol, q.posH).map((m) => m[0]!);
    const qMatches = allMatches(mol, q.posNoH).map((m) => m[0]!);
    const nMatches = allMatches(mol, q.neg).map((m) => m[0]!);
    const aMatches = allMatches(mol, q.negAcid).map((m) => m[0]!);
    const qCharge = qMatches.reduce((s, i) => s + g.atoms[i]!.chg, 0);
    const needs = qCharge > 0 && (nMatches.length > 0 || aMatches.length > 0);
    const ranks = needs ? canonicalRanks(mol) : g.atoms.map((_, i) => i);
    return { pMatches, qCharge, nMatches, aMatches, needs, ranks };
  });
  if (found === undefined) return { graph: g0, changes: [], chargeChanges: [] };
  const { pMatches, qCharge, needs, ranks } = found;
  const byRank = (list: number[]) => [...list].sort((x, y) => ranks[x]! - ranks[y]! || x - y);
  const nAtoms = byRank(found.nMatches);
  const aAtoms = byRank(found.aMatches);
  const nNeg = g.atoms.filter((a) => a.chg < 0).length;
  const before = g.atoms.map((a) => ({ chg: a.chg, hs: a.hs }));

  const neutralizeNeg = (a: GAtom, hDelta = 1) => {
    a.hs += hDelta;
    a.noImplicit = true;
    a.chg += 1;
  };
  const neutralizeNegIfPossible = (a: GAtom): boolean => {
    const early = EARLY_ATOMS.has(a.z);
    if (early && a.hs === 0) return false;
    neutralizeNeg(a, early ? -1 : 1);
    return true;
  };

  if (needs) {
    let surplus = nNeg - qCharge;
    if (surplus > 0 && nAtoms.length > 0) {
      const acids = new Set(aAtoms);
      for (const idx of nAtoms) {
        if (acids.has(idx)) continue;
        if (neutralizeNegIfPossible(g.atoms[idx]!) && --surplus === 0) break;
      }
    }
    surplus = aAtoms.length - qCharge;
    if (surplus > 0) {
      const skip = new Set<number>();
      for (const idx of nAtoms) {
        for (const b of g.bonds) {
          if (b.a !== idx && b.b !== idx) continue;
          const nbr = b.a === idx ? b.b : b.a;
          if (g.atoms[nbr]!.chg > 0) {
            if (!skip.has(nbr)) skip.add(nbr);
            else skip.add(idx);
            break;
          }
        }
      }
      for (const idx of aAtoms) {
        const a = g.atoms[idx]!;
        if (a.chg >= 0 || skip.has(idx)) continue;
        neutralizeNeg(a);
        if (--surplus === 0) break;
      }
    }
  } else {
    for (const idx of nAtoms) neutralizeNegIfPossible(g.atoms[idx]!);
  }

  let net = netCharge(g);
  if (net > 0) {
    for (const idx of pMatches) {
      const a = g.atoms[idx]!;
      a.noImplicit = true;
      while (a.chg > 0 && net > 0) {
        a.chg -= 1;
        net--;
        if (a.z !== 6 && !EARLY_ATOMS.has(a.z)) {
          const n = a.hs;
          if (n >= 1) a.hs = n - 1;
          if (n === 1) break;
        } else {
          a.hs += 1;
        }
      }
      if (net === 0) break;
    }
  }
  const chargeChanges: ChargeChange[] = [];
  g.atoms.forEach((a, i) => {
    const b = before[i]!;
    if (a.chg !== b.chg || a.hs !== b.hs) {
      chargeChanges.push({ element: elementSymbol(a.z), charge_before: b.chg, charge_after: a.chg, hydrogens_before: b.hs, hydrogens_after: a.hs });
    }
  });
  if (chargeChanges.length === 0) return { graph: g0, changes: [], chargeChanges };
  const description = `Neutralised ${chargeChanges.length} atom(s): ${chargeChanges.map((c) => `${c.element}${fmtCharge(c.charge_before)}→${fmtCharge(c.charge_after)}`).join(", ")}`;
  return { graph: g, changes: [{ step: "neutralization", description }], chargeChanges };
}

function fmtCharge(c: number): string {
  return c === 0 ? "0" : c > 0 ? `+${c === 1 ? "" : c}` : `-${c === -1 ? "" : -c}`;
}

export interface RemovedFragment {
  smiles: string;
  reason: "salt_or_solvent" | "smaller_fragment";
  pattern?: string;
  name?: string;
}

export interface StandardizeOptions {
  stripSalts: boolean;
  largestFragment: boolean;
  neutralize: boolean;
}

export interface StandardizeResult {
  parent: string;
  changes: Change[];
  fragmentsRemoved: RemovedFragment[];
  chargeChanges: ChargeChange[];
  warnings: string[];
}

/**
 * Parent structure of `mol` (parsed from `smiles`, which tells which atoms were bracket atoms). Steps that
 * would produce a structure RDKit rejects are skipped with a warning.
 */
export function standardize(rdkit: RDKit, mol: RDKitMol, smiles: string, options: StandardizeOptions): StandardizeResult {
  const flags = bracketAtoms(smiles, mol.get_num_atoms());
  let g = graphOf(mol, flags);
  const changes: Change[] = [];
  const removed: RemovedFragment[] = [];
  let chargeChanges: ChargeChange[] = [];
  const warnings: string[] = [];
  if (flags === undefined) warnings.push("Explicit hydrogen atoms in the SMILES: every hydrogen count was kept as written");
  const accept = (step: string, result: { graph: Graph; changes: Change[] }): boolean => {
    if (result.changes.length > 0 && smilesOf(rdkit, result.graph) === null) {
      warnings.push(`Skipped ${step}: it produced a structure RDKit rejects`);
      return false;
    }
    g = result.graph;
    changes.push(...result.changes);
    return true;
  };
  accept("cleanup", cleanup(rdkit, g));
  if (changes.some((c) => c.step === "metal_disconnection")) {
    warnings.push(
      "Metal-ligand bonds were broken (RDKit's metal disconnection): for a coordination complex the parent is a ligand or the bare metal ion, which may not be what you want",
    );
  }
  if (options.stripSalts) {
    const s = stripSalts(rdkit, g);
    if (accept("salt stripping", s)) removed.push(...s.removed);
  }
  if (options.largestFragment) {
    const l = largestFragment(rdkit, g);
    if (accept("fragment choice", l)) removed.push(...l.removed);
  }
  if (options.neutralize) {
    const u = uncharge(rdkit, g);
    if (accept("neutralisation", u)) chargeChanges = u.chargeChanges;
    accept("cleanup", cleanup(rdkit, g));
  }
  const parent = smilesOf(rdkit, g);
  if (parent === null) {
    // Found by the fuzzer: RDKit reads some invalid valence/aromaticity (e.g. an aromatic atom with a triple
    // bond, "c#1ccc(cc1)...") but the structure cannot be written and read back sanitised, so no parent exists.
    throw new ToolError(
      "INVALID_SMILES",
      "RDKit reads this SMILES, but its structure does not survive sanitisation when written back (typically an aromatic atom with a triple bond or an impossible valence), so it has no standardised parent",
      { reason: "parent_not_sanitisable" },
      "Check the bond orders and aromatic (lower-case) atoms, or send a Kekulé SMILES.",
    );
  }
  return { parent, changes, fragmentsRemoved: removed, chargeChanges, warnings };
}
