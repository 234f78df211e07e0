/**
 * Maximum common substructure with RDKit's FMCS (Dalke & Hastings, J. Cheminform. 2013, 5(Suppl 1), O6;
 * RDKit's C++ implementation), through MinimalLib's get_mcs_as_json, plus a SMILES of the common
 * substructure: the MCS SMARTS is matched in the first molecule, the matched atoms and bonds are cut out
 * of its MolJSON (cut bonds become hydrogens, so valences stay whole), and the fragment is re-parsed and
 * written as canonical SMILES.
 */
import { molGraph, RDKIT_JSON_DEFAULTS } from "./graph.js";
import type { RDKit, RDKitMol } from "./rdkit.js";

export type AtomCompare = "elements" | "any" | "isotopes";
export type BondCompare = "order" | "any" | "order_exact";

export interface McsOptions {
  /** Ring atoms and bonds match only ring atoms and bonds (RDKit ringMatchesRingOnly). */
  ringMatchesRingOnly: boolean;
  /** Rings are kept whole or not at all (RDKit completeRingsOnly). */
  completeRingsOnly: boolean;
  atomCompare: AtomCompare;
  bondCompare: BondCompare;
  /** FMCS's own time limit, whole seconds (RDKit's Timeout). */
  timeoutS: number;
}

export interface McsResult {
  /** RDKit's SMARTS of the MCS ("" when nothing is in common). */
  smarts: string;
  atomCount: number;
  bondCount: number;
  /** FMCS stopped at its timeout; the result is the best found so far. */
  timedOut: boolean;
  /** Canonical SMILES of the common substructure as it occurs in the first molecule, or null. */
  smiles: string | null;
  /** Why smiles is null when atomCount > 0. */
  smilesNote?: string;
}

const ATOM_COMPARE: Record<AtomCompare, string> = { elements: "Elements", any: "Any", isotopes: "Isotopes" };
const BOND_COMPARE: Record<BondCompare, string> = { order: "Order", any: "Any", order_exact: "OrderExact" };

/** The JSON details MinimalLib's get_mcs_* functions read (RDKit's parseMCSParametersJSON keys). */
export function mcsDetails(options: McsOptions): string {
  return JSON.stringify({
    Timeout: options.timeoutS,
    AtomCompare: ATOM_COMPARE[options.atomCompare],
    BondCompare: BOND_COMPARE[options.bondCompare],
    // Sets both the atom and the bond flag, as rdFMCS.FindMCS(ringMatchesRingOnly=...) does.
    RingMatchesRingOnly: options.ringMatchesRingOnly,
    // Sets the bond flag, as rdFMCS.FindMCS(completeRingsOnly=...) does.
    CompleteRingsOnly: options.completeRingsOnly,
  });
}

interface McsJson {
  smarts?: unknown;
  numAtoms?: unknown;
  numBonds?: unknown;
  canceled?: unknown;
}

/** Runs FMCS over `mols` (at least two, already parsed; the caller keeps ownership and deletes them). */
export function findMcs(rdkit: RDKit, mols: readonly RDKitMol[], options: McsOptions): McsResult {
  const list = new rdkit.MolList();
  let raw: string;
  try {
    for (const mol of mols) list.append(mol); // append copies the molecule into the list
    raw = rdkit.get_mcs_as_json(list, mcsDetails(options));
  } finally {
    list.delete();
  }
  const parsed = JSON.parse(raw) as McsJson;
  // With StoreAll (never set here) RDKit answers a list of equivalent SMARTS; take the first if it ever does.
  const smarts = Array.isArray(parsed.smarts) ? String(parsed.smarts[0] ?? "") : typeof parsed.smarts === "string" ? parsed.smarts : "";
  const atomCount = typeof parsed.numAtoms === "number" ? parsed.numAtoms : 0;
  const bondCount = typeof parsed.numBonds === "number" ? parsed.numBonds : 0;
  const result: McsResult = { smarts, atomCount, bondCount, timedOut: parsed.canceled === true, smiles: null };
  if (atomCount === 0 || smarts.length === 0) return result;
  const first = mols[0];
  if (first === undefined) return result;
  let fragment = substructureSmiles(rdkit, first, smarts);
  if (typeof fragment !== "string" && options.atomCompare === "any") {
    // With AtomCompare Any, RDKit writes a one-atom MCS with the element of the molecule it came from (e.g.
    // [#35&!R] for a bromine that matches any chain atom), so it may not match the first molecule. The MCS
    // is any atom there: drop the element primitives and keep the ring constraints.
    fragment = substructureSmiles(rdkit, first, smarts.replace(/#\d+/g, "*"));
  }
  if (typeof fragment === "string") result.smiles = fragment;
  else result.smilesNote = fragment.note;
  return result;
}

// ---- the common substructure as a molecule ----

/**
 * Canonical SMILES of the atoms and bonds of `mol` that the SMARTS `smarts` matches first. Bonds of kept
 * atoms that are not part of the match are replaced by hydrogens (one per unit of Kekulé bond order), so
 * every kept atom keeps its valence; charges, isotopes and radicals are kept, stereo is dropped (FMCS
 * ignores it by default). Answers { note } when the fragment cannot be built.
 */
export function substructureSmiles(rdkit: RDKit, mol: RDKitMol, smarts: string): string | { note: string } {
  const query = rdkit.get_qmol(smarts);
  if (!query || !query.is_valid()) {
    query?.delete();
    return { note: "RDKit could not re-read its own MCS SMARTS" };
  }
  let match: { atoms?: number[]; bonds?: number[] };
  try {
    match = JSON.parse(mol.get_substruct_match(query)) as { atoms?: number[]; bonds?: number[] };
  } finally {
    query.delete();
  }
  if (!Array.isArray(match.atoms) || match.atoms.length === 0) return { note: "the MCS SMARTS does not match the first molecule" };

  const { atoms, bonds } = molGraph(mol);

  const kept = [...new Set(match.atoms)].sort((a, b) => a - b);
  const newIndex = new Map(kept.map((old, i) => [old, i]));
  const keptBonds = new Set(match.bonds ?? []);
  const addedHs = new Map<number, number>();
  const outBonds: Array<{ bo: number; atoms: [number, number] }> = [];
  bonds.forEach((bond, index) => {
    const { begin: a, end: b } = bond;
    const ia = newIndex.get(a);
    const ib = newIndex.get(b);
    if (ia !== undefined && ib !== undefined && keptBonds.has(index)) {
      outBonds.push({ bo: bond.bo, atoms: [ia, ib] });
      return;
    }
    const order = bond.bo;
    if (ia !== undefined) addedHs.set(a, (addedHs.get(a) ?? 0) + order);
    if (ib !== undefined) addedHs.set(b, (addedHs.get(b) ?? 0) + order);
  });
  const outAtoms = kept.map((old) => {
    const a = atoms[old]!;
    return { z: a.z, impHs: a.hs + (addedHs.get(old) ?? 0), chg: a.chg, nRad: a.nRad, isotope: a.isotope };
  });
  const fragmentJson = JSON.stringify({
    rdkitjson: { version: 12 },
    defaults: RDKIT_JSON_DEFAULTS,
    molecules: [{ atoms: outAtoms, bonds: outBonds }],
  });
  const fragment = rdkit.get_mol(fragmentJson);
  if (!fragment || !fragment.is_valid()) {
    fragment?.delete();
    return { note: "the matched atoms do not form a molecule RDKit can sanitise" };
  }
  try {
    return fragment.get_smiles();
  } finally {
    fragment.delete();
  }
}

/** Parses every SMILES of a list (argument smiles_list[i]); deletes what it parsed when one fails. */
export function parseAll(parse: (smiles: string, argName: string) => RDKitMol, smilesList: readonly string[]): RDKitMol[] {
  const mols: RDKitMol[] = [];
  try {
    smilesList.forEach((s, i) => mols.push(parse(s, `smiles_list[${i}]`)));
    return mols;
  } catch (err) {
    for (const m of mols) m.delete();
    throw err;
  }
}
