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
  /** Atoms and bonds FMCS answered before partial rings were trimmed (complete rings only), when it did. */
  trimmedFrom?: { atoms: number; bonds: number };
}

const ATOM_COMPARE: Record<AtomCompare, string> = { elements: "Elements", any: "Any", isotopes: "Isotopes" };
const BOND_COMPARE: Record<BondCompare, string> = { order: "Order", any: "Any", order_exact: "OrderExact" };

/** The JSON details MinimalLib's get_mcs_* functions read (RDKit's parseMCSParametersJSON keys). */
function mcsDetails(options: McsOptions): string {
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
  if (options.completeRingsOnly) {
    const trimmed = trimPartialRings(rdkit, mols, smarts);
    if (trimmed !== undefined) Object.assign(result, trimmed, { trimmedFrom: { atoms: atomCount, bonds: bondCount } });
    if (result.atomCount === 0) return result;
  }
  const first = mols[0];
  if (first === undefined) return result;
  let fragment = substructureSmiles(rdkit, first, result.smarts);
  if (typeof fragment !== "string" && options.atomCompare === "any") {
    // With AtomCompare Any, RDKit writes a one-atom MCS with the element of the molecule it came from (e.g.
    // [#35&!R] for a bromine that matches any chain atom), so it may not match the first molecule. The MCS
    // is any atom there: drop the element primitives and keep the ring constraints.
    fragment = substructureSmiles(rdkit, first, result.smarts.replace(/#\d+/g, "*"));
  }
  if (typeof fragment === "string") result.smiles = fragment;
  else result.smilesNote = fragment.note;
  return result;
}

// ---- complete rings only: the post-check ----

/** An FMCS SMARTS as a graph: each atom's bracket token, each bond's token ("" for the implicit bond). */
interface SmartsGraph {
  atoms: string[];
  bonds: Array<{ a: number; b: number; token: string }>;
}

/**
 * Reads the SMARTS FMCS writes: every atom bracketed, bonds as operator strings, branches and ring closures.
 * Atoms are numbered in the order written, as RDKit's SMARTS parser numbers them. Undefined for anything else.
 */
function parseFmcsSmarts(smarts: string): SmartsGraph | undefined {
  const g: SmartsGraph = { atoms: [], bonds: [] };
  const stack: number[] = [];
  const open = new Map<string, { atom: number; token: string }>();
  let prev = -1;
  let bond = "";
  let i = 0;
  while (i < smarts.length) {
    const c = smarts[i]!;
    if (c === "[") {
      const end = smarts.indexOf("]", i);
      if (end < 0) return undefined;
      const atom = g.atoms.length;
      g.atoms.push(smarts.slice(i, end + 1));
      if (prev >= 0) g.bonds.push({ a: prev, b: atom, token: bond });
      bond = "";
      prev = atom;
      i = end + 1;
    } else if (c === "(") {
      stack.push(prev);
      i++;
    } else if (c === ")") {
      const p = stack.pop();
      if (p === undefined) return undefined;
      prev = p;
      i++;
    } else if (c === ".") {
      return undefined;
    } else if (/[0-9%]/.test(c)) {
      const label = c === "%" ? smarts.slice(i, i + 3) : c;
      i += label.length;
      const o = open.get(label);
      if (o === undefined) open.set(label, { atom: prev, token: bond });
      else {
        open.delete(label);
        g.bonds.push({ a: o.atom, b: prev, token: bond || o.token });
      }
      bond = "";
    } else if (/[-=#:~@,;&!$/\\]/.test(c)) {
      bond += c;
      i++;
    } else {
      return undefined;
    }
  }
  return open.size === 0 && prev >= 0 ? g : undefined;
}

/** A SMARTS for the atoms and bonds `keepBonds` of `g` (one connected part), written depth-first. */
function writeSmarts(g: SmartsGraph, atoms: readonly number[], keepBonds: ReadonlySet<number>): string {
  const nbrs = new Map<number, Array<{ to: number; bond: number }>>();
  for (const a of atoms) nbrs.set(a, []);
  g.bonds.forEach((b, k) => {
    if (!keepBonds.has(k)) return;
    nbrs.get(b.a)!.push({ to: b.b, bond: k });
    nbrs.get(b.b)!.push({ to: b.a, bond: k });
  });
  const start = Math.min(...atoms);
  // Spanning tree first, so that ring closures are known before writing.
  const seen = new Set<number>([start]);
  const treeBonds = new Set<number>();
  const order: number[] = [];
  const visit = (a: number) => {
    order.push(a);
    for (const { to, bond } of nbrs.get(a)!) {
      if (seen.has(to)) continue;
      seen.add(to);
      treeBonds.add(bond);
      visit(to);
    }
  };
  visit(start);
  const closures = new Map<number, Array<{ label: number; bond: number }>>();
  let label = 0;
  for (const k of keepBonds) {
    if (treeBonds.has(k)) continue;
    label++;
    const b = g.bonds[k]!;
    for (const end of [b.a, b.b]) {
      const list = closures.get(end) ?? [];
      list.push({ label, bond: k });
      closures.set(end, list);
    }
  }
  const ringLabel = (n: number) => (n < 10 ? String(n) : `%${n}`);
  const written = new Set<number>();
  const closed = new Set<number>();
  const write = (a: number): string => {
    written.add(a);
    let out = g.atoms[a]!;
    // The bond is written where the ring opens only.
    for (const { label: l, bond } of closures.get(a) ?? []) {
      out += (closed.has(l) ? "" : g.bonds[bond]!.token) + ringLabel(l);
      closed.add(l);
    }
    const children = nbrs.get(a)!.filter(({ to, bond }) => treeBonds.has(bond) && !written.has(to));
    children.forEach(({ to, bond }, idx) => {
      const part = g.bonds[bond]!.token + write(to);
      out += idx < children.length - 1 ? `(${part})` : part;
    });
    return out;
  };
  return write(start);
}

/** Bonds of `bonds` (pairs of atoms) that lie on no cycle of that graph (its bridges). */
function bridges(atomCount: number, bonds: ReadonlyArray<readonly [number, number]>): Set<number> {
  const out = new Set<number>();
  bonds.forEach(([x, y], k) => {
    // Is y reachable from x without bond k? The graphs are small (at most a few hundred bonds).
    const adj: number[][] = Array.from({ length: atomCount }, () => []);
    bonds.forEach(([p, q], j) => {
      if (j === k) return;
      adj[p]!.push(q);
      adj[q]!.push(p);
    });
    const seen = new Set<number>([x]);
    const todo = [x];
    while (todo.length > 0) {
      const a = todo.pop()!;
      for (const n of adj[a]!) {
        if (!seen.has(n)) {
          seen.add(n);
          todo.push(n);
        }
      }
    }
    if (!seen.has(y)) out.add(k);
  });
  return out;
}

/**
 * RDKit's FMCS in the 2026.09 WASM build can answer, with CompleteRingsOnly, a ring plus a dangling ring atom
 * (C1CC2CCC1C2 with naphthalene: 7 atoms, where native RDKit 2022.09 gives the 6-ring). The rule checked here,
 * which native FMCS keeps: a bond that is a ring bond in an input molecule is part of the MCS only if it lies
 * on a ring of the MCS itself. Bonds breaking it are removed (with the atoms only they held) and the largest
 * connected part remains (most bonds, then most atoms). Undefined when the result already keeps the rule.
 */
function trimPartialRings(rdkit: RDKit, mols: readonly RDKitMol[], smarts: string): Pick<McsResult, "smarts" | "atomCount" | "bondCount"> | undefined {
  const g = parseFmcsSmarts(smarts);
  if (g === undefined) return undefined;
  const query = rdkit.get_qmol(smarts);
  if (!query || !query.is_valid()) {
    query?.delete();
    return undefined;
  }
  const pairs = g.bonds.map((b) => [b.a, b.b] as const);
  const mcsBridges = bridges(g.atoms.length, pairs);
  const bad = new Set<number>();
  try {
    for (const mol of mols) {
      const match = JSON.parse(mol.get_substruct_match(query)) as { atoms?: number[] };
      const mapped = match.atoms;
      if (!Array.isArray(mapped) || mapped.length !== g.atoms.length) return undefined;
      const graph = molGraph(mol);
      const ringBond = new Set<string>();
      for (const ring of graph.atomRings) {
        // RingInfo's atom rings list the ring atoms in order; consecutive atoms are ring bonds.
        ring.forEach((a, j) => {
          const b = ring[(j + 1) % ring.length]!;
          ringBond.add(`${Math.min(a, b)},${Math.max(a, b)}`);
        });
      }
      for (const k of mcsBridges) {
        const [x, y] = [mapped[pairs[k]![0]]!, mapped[pairs[k]![1]]!];
        if (ringBond.has(`${Math.min(x, y)},${Math.max(x, y)}`)) bad.add(k);
      }
    }
  } finally {
    query.delete();
  }
  if (bad.size === 0) return undefined;
  const keep = new Set(g.bonds.map((_, k) => k).filter((k) => !bad.has(k)));
  // Connected parts of what remains.
  const parent = g.atoms.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (const k of keep) parent[find(pairs[k]![0])] = find(pairs[k]![1]);
  const parts = new Map<number, { atoms: number[]; bonds: Set<number> }>();
  g.atoms.forEach((_, i) => {
    const r = find(i);
    const part = parts.get(r) ?? { atoms: [], bonds: new Set<number>() };
    part.atoms.push(i);
    parts.set(r, part);
  });
  for (const k of keep) parts.get(find(pairs[k]![0]))!.bonds.add(k);
  let best: { atoms: number[]; bonds: Set<number> } | undefined;
  for (const part of parts.values()) {
    if (best === undefined || part.bonds.size > best.bonds.size || (part.bonds.size === best.bonds.size && part.atoms.length > best.atoms.length)) best = part;
  }
  if (best === undefined) return { smarts: "", atomCount: 0, bondCount: 0 };
  return { smarts: writeSmarts(g, best.atoms, best.bonds), atomCount: best.atoms.length, bondCount: best.bonds.size };
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
export function parseAll(parse: (smiles: string, index: number) => RDKitMol, smilesList: readonly string[]): RDKitMol[] {
  const mols: RDKitMol[] = [];
  try {
    smilesList.forEach((s, i) => mols.push(parse(s, i)));
    return mols;
  } catch (err) {
    for (const m of mols) m.delete();
    throw err;
  }
}
