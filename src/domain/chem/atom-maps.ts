/**
 * Atom map numbers kept through tools that rewrite a molecule on the molecule graph (standardize,
 * enumerate_stereoisomers, retrosynthesis). Map numbers on dummy atoms ([*:1]) are how R-groups, MMP fragments and
 * reaction templates say which end is which; RDKit JSON, the path every graph takes back into RDKit, has no field for
 * them, so a rewrite dropped them.
 *
 * While such a tool runs, each mapped atom carries its map in its isotope: isotope + MAP_ISOTOPE_BASE * rank, where
 * rank numbers the molecule's distinct map numbers from 1 in ascending order (RDKit keeps isotopes in 16 bits, so
 * dense ranks rather than the map numbers themselves). Isotopes ride through JSON, reactions, fragmenting and
 * canonical SMILES, and rank atoms the way map numbers do (both are atom invariants of RDKit's canonical ranking and
 * CIP ranks: a centre whose neighbours differ only by map number stays a centre). Every SMILES the tool answers is
 * decoded afterwards and written again by RDKit, so its atom order is the canonical one with map numbers.
 */
import { cloneGraph, molGraph, molOf } from "./graph.js";
import { rewrittenSmiles, type RDKit, type RDKitMol } from "./rdkit.js";

/** Above every real isotope (the heaviest nuclide known has mass number 295). */
export const MAP_ISOTOPE_BASE = 300;
/** RDKit stores an isotope in 16 bits: at most this many distinct map numbers can ride in one molecule. */
const MAX_ENCODED_MAPS = Math.floor(65_535 / MAP_ISOTOPE_BASE) - 1;

/** A bracket atom with a map class, in RDKit's SMILES: [isotope? ... :map]. */
const MAPPED_ATOM = /\[(\d*)([^\]:]*):(\d+)\]/g;
/** A bracket atom whose isotope carries an encoded map. */
const ENCODED_ATOM = /\[(\d+)([^\]]*)\]/g;

export interface AtomMaps {
  /** The molecule with its maps in its isotopes, same atom order as the input; owned by the caller. */
  mol: RDKitMol;
  /** `text` with each encoded atom written back with its isotope and map number. */
  decodeText: (text: string) => string;
  /** A SMILES decoded and written again by RDKit (canonical with its map numbers); text that is no SMILES is only decoded. */
  decodeSmiles: (smiles: string) => string;
  /** Every string in `value` (arrays and objects walked) decoded as decodeSmiles does. */
  decodeAll: <T>(value: T) => T;
}

/** The map number of each atom of `mol`, in atom order (0 for none), from its V3000 molblock's aamap column. */
export function atomMapNumbers(mol: RDKitMol): number[] {
  const block = mol.get_v3Kmolblock();
  const start = block.indexOf("M  V30 BEGIN ATOM");
  const end = block.indexOf("M  V30 END ATOM");
  if (start < 0 || end < 0) return [];
  const maps: number[] = [];
  for (const line of block.slice(start, end).split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    // M V30 index type x y z aamap [properties]
    if (fields.length >= 8 && fields[1] === "V30") maps.push(Number(fields[7]) || 0);
  }
  return maps;
}

/**
 * The molecule with its atom maps as isotopes, or undefined when it has none (or more distinct map numbers than
 * fit, MAX_ENCODED_MAPS: then the tool runs on the molecule as it is).
 */
export function encodeAtomMaps(rdkit: RDKit, mol: RDKitMol): AtomMaps | undefined {
  MAPPED_ATOM.lastIndex = 0;
  if (!MAPPED_ATOM.test(mol.get_smiles())) return undefined;
  const maps = atomMapNumbers(mol);
  const distinct = [...new Set(maps.filter((m) => m > 0))].sort((a, b) => a - b);
  if (distinct.length === 0 || distinct.length > MAX_ENCODED_MAPS) return undefined;
  const rankOf = new Map(distinct.map((m, k) => [m, k + 1]));
  const graph = cloneGraph(molGraph(mol));
  if (graph.atoms.length !== maps.length) return undefined;
  for (const [i, atom] of graph.atoms.entries()) {
    const rank = rankOf.get(maps[i]!);
    if (rank !== undefined) atom.isotope = atom.isotope + MAP_ISOTOPE_BASE * rank;
  }
  const encoded = molOf(rdkit, graph);
  if (encoded === null) return undefined;
  const decodeText = (text: string): string =>
    text.replace(ENCODED_ATOM, (whole, iso: string, rest: string) => {
      const value = Number(iso);
      const map = distinct[Math.floor(value / MAP_ISOTOPE_BASE) - 1];
      if (value < MAP_ISOTOPE_BASE || map === undefined) return whole;
      const isotope = value % MAP_ISOTOPE_BASE;
      return `[${isotope === 0 ? "" : isotope}${rest}:${map}]`;
    });
  const decodeSmiles = (smiles: string): string => {
    const text = decodeText(smiles);
    if (text === smiles || /\s/.test(text)) return text;
    return rewrittenSmiles(rdkit, text) ?? text;
  };
  const decodeAll = <T>(value: T): T => {
    if (typeof value === "string") return decodeSmiles(value) as T;
    if (Array.isArray(value)) return value.map((v: unknown) => decodeAll(v)) as T;
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = decodeAll(v);
      return out as T;
    }
    return value;
  };
  return { mol: encoded, decodeText, decodeSmiles, decodeAll };
}

/**
 * `fn` on the molecule with its atom maps as isotopes, its answer decoded (every string in it); `fn` on `mol` itself
 * when it has no map numbers.
 */
export function keepingAtomMaps<T>(rdkit: RDKit, mol: RDKitMol, fn: (mol: RDKitMol) => T): T {
  const maps = encodeAtomMaps(rdkit, mol);
  if (maps === undefined) return fn(mol);
  try {
    return maps.decodeAll(fn(maps.mol));
  } finally {
    maps.mol.delete();
  }
}
