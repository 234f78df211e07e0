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
 * Without step 2 this is rdMolStandardize.ChargeParent. The rules and tables (assets/standardize-rules.json) are those of RDKit's
 * MolStandardize (Release 2022.09), a C++ port by Susan Leung of MolVS (Matt Swain, molvs.readthedocs.io);
 * the acid/base pairs derive from the FDA Substance Registration System standard operating procedure.
 * The code is ours: it edits the molecule as a graph (graph.ts, read from RDKit's JSON) and uses MinimalLib for SMARTS
 * matching, reactions (the normalisation transforms), sanitisation and canonical SMILES.
 *
 * Hydrogens: every atom carries a total hydrogen count. RDKit recomputes the implicit hydrogens of atoms
 * written without brackets in the SMILES after metal disconnection; that is modelled with RDKit's valence
 * rules (implicitHydrogens); every other step sets hydrogen counts explicitly, as RDKit does.
 */
import { readFileSync } from "node:fs";
import type { Reaction } from "@rdkit/rdkit";
import { assetPath } from "../assets.js";
import { ToolError } from "../errors.js";
import {
  BO_DATIVE,
  combine,
  cloneGraph,
  degree,
  elementSymbol,
  fragments,
  molFromJson,
  molGraph,
  molOf,
  subgraph,
  withGraphMol,
  type Graph as BaseGraph,
  type GraphAtom,
  type GraphBond,
} from "./graph.js";
import { firstMatch, substructMatches } from "./match.js";
import { bracketAtoms } from "./smiles-lexer.js";
import { inputFormatOf } from "./input-format.js";
import { canonicalOutput, type RDKit, type RDKitMol } from "./rdkit.js";
import { keepingAtomMaps } from "./atom-maps.js";
import { compileAll, compiledPerRdkit } from "./rdkit-cache.js";

// ---------------------------------------------------------------------------------------------------------
// Data: RDKit's salt list and valence lists (assets/standardize-data.json) and MolStandardize's rule tables
// (assets/standardize-rules.json), both written by scripts/build-standardize-asset.py.

interface SaltEntry {
  smarts: string;
  name?: string;
}
interface StandardizeData {
  salts: SaltEntry[];
  valence_lists: Record<string, number[]>;
}
interface StandardizeRules {
  /** Normalisation transforms, applied in this order. */
  normalizations: { name: string; reaction_smarts: string }[];
  /** Acid/base pairs, strongest acid first. */
  acid_base_pairs: { name: string; acid: string; base: string }[];
  /** Reionizer charge corrections: free (unbonded) neutral metal or chlorine atoms get their ionic charge. */
  charge_corrections: { elements: number[]; charge: number }[];
  /** Uncharger queries. */
  uncharger: { pos_h: string; pos_noh: string; neg: string; neg_acid: string };
  /** MetalDisconnector's element sets (atomic numbers). */
  metal_disconnection: { metals_nof: number[]; metals_non: number[]; nof: number[]; non_metals_non: number[] };
  /** RDKit's isEarlyAtom (Atom.cpp, 2022.09): elements left of carbon, whose charge counts the other way for hydrogens. */
  early_atoms: number[];
  /** Names for the unnamed entries of Salts.txt (our labels; the patterns are RDKit's). */
  salt_labels: Record<string, string>;
}

const readAsset = <T>(name: string): T => JSON.parse(readFileSync(assetPath(name), "utf8")) as T;
let data: StandardizeData | undefined;
function standardizeData(): StandardizeData {
  data ??= readAsset<StandardizeData>("standardize-data.json");
  return data;
}

const RULES = readAsset<StandardizeRules>("standardize-rules.json");
/** Metals disconnected from N, O, F (MetalDisconnector metal_nof). */
const METALS_NOF = new Set(RULES.metal_disconnection.metals_nof);
/** Metals disconnected from other non-metals (metal_non). */
const METALS_NON = new Set(RULES.metal_disconnection.metals_non);
const NOF = new Set(RULES.metal_disconnection.nof);
/** [B,C,Si,P,As,Sb,S,Se,Te,Cl,Br,I,At]: aliphatic atoms of these elements (SMARTS symbols without #). */
const NON_METALS_NON = new Set(RULES.metal_disconnection.non_metals_non);
const EARLY_ATOMS = new Set(RULES.early_atoms);

function valenceList(z: number): number[] {
  return standardizeData().valence_lists[String(z)] ?? [-1];
}

// ---------------------------------------------------------------------------------------------------------
// The molecule as an editable graph (graph.ts), each atom also carrying RDKit's noImplicit flag.

interface StdAtom extends GraphAtom {
  /** RDKit's noImplicit: the hydrogen count is fixed (bracket atoms); otherwise RDKit recomputes it. */
  noImplicit: boolean;
}
type Graph = BaseGraph<StdAtom>;

/** The molecule of `mol` as a graph; `noImplicit[i]` (default true) marks bracket atoms. */
function graphOf(mol: RDKitMol, noImplicit?: readonly boolean[]): Graph {
  const { atoms, bonds } = molGraph(mol);
  return { atoms: atoms.map((a, i) => ({ ...a, noImplicit: noImplicit?.[i] ?? true })), bonds };
}

/** A bond's contribution to an atom's valence, as RDKit counts it (a dative bond counts for its acceptor only). */
function valenceContribution(b: GraphBond, atom: number): number {
  if (b.bo === BO_DATIVE) return atom === b.end ? 1 : 0;
  return b.bo === 0 ? 0 : b.bo;
}

function explicitValence(g: Graph, atom: number, withHs: number): number {
  let v = withHs;
  for (const b of g.bonds) if (b.begin === atom || b.end === atom) v += valenceContribution(b, atom);
  return v;
}

/**
 * Implicit hydrogens RDKit gives an atom whose hydrogen count is not fixed (Atom::calcImplicitValence,
 * non-strict): the smallest allowed valence (shifted by the charge) that covers the explicit valence.
 */
function implicitHydrogens(g: Graph, atom: number): number {
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
// Compiled queries, once per RDKit module (never deleted).

interface Queries {
  normalizations: { name: string; reactant: RDKitMol; rxn: Reaction }[];
  acids: RDKitMol[];
  bases: RDKitMol[];
  posH: RDKitMol;
  posNoH: RDKitMol;
  neg: RDKitMol;
  negAcid: RDKitMol;
  salts: { query: RDKitMol; atoms: number; entry: SaltEntry }[];
}

const queries = compiledPerRdkit((rdkit): Queries =>
  compileAll(rdkit, "standardize", (c) => ({
    normalizations: RULES.normalizations.map(({ name, reaction_smarts: smarts }) => {
      const rxn = c.reaction(smarts);
      return { name, reactant: c.query(smarts.split(">>")[0]!), rxn };
    }),
    acids: RULES.acid_base_pairs.map((p) => c.query(p.acid)),
    bases: RULES.acid_base_pairs.map((p) => c.query(p.base)),
    posH: c.query(RULES.uncharger.pos_h),
    posNoH: c.query(RULES.uncharger.pos_noh),
    neg: c.query(RULES.uncharger.neg),
    negAcid: c.query(RULES.uncharger.neg_acid),
    salts: standardizeData().salts.map((entry) => {
      const query = c.query(entry.smarts);
      return { query, atoms: query.get_num_atoms(), entry };
    }),
  })),
);

/** Every match (first atoms of at most 1000 matches, RDKit's default cap). */
function allMatches(mol: RDKitMol, query: RDKitMol): number[][] {
  return substructMatches(mol, query, 1000);
}

// ---------------------------------------------------------------------------------------------------------
// Steps. Each returns the new graph and what it changed.

interface Change {
  step: "metal_disconnection" | "normalization" | "reionization" | "salt_stripping" | "largest_fragment" | "neutralization";
  description: string;
  removed?: string[];
}

/** MetalDisconnector: breaks metal-N/O/F and (transition) metal-non-metal bonds and sets charges. */
function disconnectMetals(g0: Graph): { graph: Graph; changes: Change[] } {
  const g = cloneGraph(g0);
  const cut: { metal: number; other: number; order: number; bond: GraphBond }[] = [];
  // First the metal-N/O/F bonds, then metal-non-metal bonds (the two queries of RDKit, in that order).
  const isNof = (metal: StdAtom, other: StdAtom) => METALS_NOF.has(metal.z) && NOF.has(other.z);
  const isNon = (metal: StdAtom, other: StdAtom) => METALS_NON.has(metal.z) && NON_METALS_NON.has(other.z) && !other.aromatic;
  for (const pass of [isNof, isNon]) {
    for (const b of g.bonds) {
      if (cut.some((c) => c.bond === b)) continue;
      const [x, y] = [g.atoms[b.begin]!, g.atoms[b.end]!];
      let metal = -1;
      if (pass(x, y)) metal = b.begin;
      else if (pass(y, x)) metal = b.end;
      if (metal < 0) continue;
      const other = metal === b.begin ? b.end : b.begin;
      cut.push({ metal, other, order: b.bo === BO_DATIVE || b.bo === 0 ? 0 : b.bo, bond: b });
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
function smilesOf(rdkit: RDKit, g: Graph): string | null {
  const written = withGraphMol(rdkit, g, (m) => m.get_smiles());
  return written === undefined ? null : canonicalOutput(rdkit, written);
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
    let products: ReturnType<Reaction["run_reactants"]> | undefined;
    let best: { smiles: string; mol: RDKitMol } | undefined;
    try {
      reactants.append(input);
      products = t.rxn.run_reactants(reactants, 1000);
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
    const clean = molFromJson(rdkit, best.mol.get_json());
    best.mol.delete();
    if (clean === null) break;
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
  for (const cc of RULES.charge_corrections) {
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
      changes.push({ step: "reionization", description: `Ionised ${RULES.acid_base_pairs[hit[0]]!.name} to balance the charge corrections` });
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
    changes.push({ step: "reionization", description: `Moved a proton from ${RULES.acid_base_pairs[sp[0]]!.name} to ${RULES.acid_base_pairs[wi[0]]!.name}` });
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
  readonly smiles: string;
  heavy: number;
  withHs: number;
  readonly mass: number;
  organic: boolean;
}

/**
 * Each fragment's facts. Its canonical SMILES and exact mass (a molecule built and its descriptors computed) are read
 * only when asked for: salt stripping needs them for the fragments it removes, the fragment choice on ties.
 */
function fragmentInfos(rdkit: RDKit, g: Graph, parts: number[][] = fragments(g)): FragmentInfo[] {
  return parts.map((atoms) => {
    const graph = subgraph(g, atoms);
    let props: { smiles: string; mass: number } | undefined;
    const read = () =>
      (props ??= withGraphMol(rdkit, graph, (m) => ({
        smiles: canonicalOutput(rdkit, m.get_smiles()),
        mass: (JSON.parse(m.get_descriptors()) as { exactmw: number }).exactmw,
      })) ?? { smiles: "", mass: 0 });
    return {
      atoms,
      graph,
      get smiles() {
        return read().smiles;
      },
      heavy: atoms.length,
      withHs: atoms.length + graph.atoms.reduce((s, a) => s + a.hs, 0),
      get mass() {
        return read().mass;
      },
      organic: graph.atoms.some((a) => a.z === 6),
    };
  });
}

/** SaltRemover (dontRemoveEverything): removes whole fragments matching a salt pattern, never the last ones. */
function stripSalts(rdkit: RDKit, g: Graph): { graph: Graph; changes: Change[]; removed: RemovedFragment[] } {
  const parts = fragments(g);
  if (parts.length <= 1) return { graph: g, changes: [], removed: [] };
  let frags = fragmentInfos(rdkit, g, parts);
  const removed: RemovedFragment[] = [];
  for (const salt of queries(rdkit).salts) {
    const hits = frags.filter((f) => f.heavy === salt.atoms && withGraphMol(rdkit, f.graph, (m) => firstMatch(m, salt.query) !== undefined) === true);
    if (hits.length === 0 || hits.length === frags.length) continue;
    frags = frags.filter((f) => !hits.includes(f));
    const label = salt.entry.name ?? RULES.salt_labels[salt.entry.smarts] ?? salt.entry.smarts;
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
  const parts = fragments(g);
  if (parts.length <= 1) return { graph: g, changes: [], removed: [] };
  const frags = fragmentInfos(rdkit, g, parts);
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

interface ChargeChange {
  element: string;
  charge_before: number;
  charge_after: number;
  hydrogens_before: number;
  hydrogens_after: number;
}

/**
 * Bracket flags for a molecule read from a molblock, which has no brackets: those of its canonical SMILES
 * (RDKit brackets exactly the atoms whose hydrogen count it cannot recompute), mapped back to the
 * molblock's atom order, so a molblock is standardised as its SMILES is.
 */
function bracketAtomsOfMol(mol: RDKitMol): boolean[] | undefined {
  const smiles = mol.get_smiles();
  const order = JSON.parse(mol.get_prop("_smilesAtomOutputOrder")) as number[];
  const written = bracketAtoms(smiles, order.length);
  if (written === undefined || order.length !== mol.get_num_atoms()) return undefined;
  const flags: boolean[] = [];
  order.forEach((atom, position) => (flags[atom] = written[position]!));
  return flags;
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

  const neutralizeNeg = (a: StdAtom, hDelta = 1) => {
    a.hs += hDelta;
    a.noImplicit = true;
    a.chg += 1;
  };
  const neutralizeNegIfPossible = (a: StdAtom): boolean => {
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
          if (b.begin !== idx && b.end !== idx) continue;
          const nbr = b.begin === idx ? b.end : b.begin;
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

interface RemovedFragment {
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
  const flags = inputFormatOf(smiles) === "molblock" ? bracketAtomsOfMol(mol) : bracketAtoms(smiles, mol.get_num_atoms());
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

/** Whether a standardised parent is a single charged atom or has no carbon (tools/molecule-input.ts ParentWarning says why it matters). */
export function parentNotOrganic(rdkit: RDKit, parent: string): boolean {
  const mol = rdkit.get_mol(parent);
  try {
    if (!mol?.is_valid()) return false;
    const { atoms } = molGraph(mol);
    const carbons = atoms.filter((a) => a.z === 6).length;
    const ion = atoms.length === 1 && atoms[0]!.chg !== 0;
    return carbons === 0 || ion;
  } finally {
    mol?.delete();
  }
}

/**
 * Elements that are not metals here: the organic non-metals, halogens and noble gases, and the metalloids B, Si, Ge,
 * As, Se, Sb, Te (organoboron and organosilicon compounds are ordinary organic chemistry); 0 is a dummy atom.
 */
const NOT_METALS = new Set([0, 1, 2, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 32, 33, 34, 35, 36, 51, 52, 53, 54, 85, 86]);

export function isMetal(z: number): boolean {
  return !NOT_METALS.has(z);
}

/**
 * Whether a molecule holding a metal keeps itself as its parent: when standardising it leaves no organic parent (a
 * bare ion or no carbon), a metal complex or metal salt has no salt-stripped parent worth computing on. Cisplatin
 * gives [Pt+4] here and ammonia (N) by native RDKit's ChargeParent, zinc acetate [Zn+2]: each would report the
 * ion's or a ligand's values as the drug's. The input itself is the honest parent, said so (METAL_COMPLEX_KEPT).
 */
export function keepsItselfAsParent(rdkit: RDKit, mol: RDKitMol, parent: string): boolean {
  return parentNotOrganic(rdkit, parent) && molGraph(mol).atoms.some((a) => isMetal(a.z));
}

/** What a METAL_COMPLEX_KEPT warning says, in standardize's warnings and the per-molecule tools'. */
export function METAL_COMPLEX_KEPT_TEXT(input: string, parent: string): string {
  return (
    `${input} holds a metal, and standardising it leaves no organic parent (${parent}), so the input itself is the parent: ` +
    "every value is the whole complex's or salt's, metal included. Send the ligand or counter-ion you mean to compute on it alone."
  );
}

/** What a INORGANIC_PARENT warning says of a parent, in standardize's warnings and the per-molecule tools'. */
export function INORGANIC_PARENT_TEXT(parent: string): string {
  return `The standardised parent ${parent} is a bare ion or has no carbon (a metal salt of small anions keeps the metal as its largest fragment).`;
}

/**
 * Standardisation re-reads the molecule after each step and runs RDKit reactions on it; RDKit's WASM build
 * throws C++ exceptions on long chains from about 600 atoms (found by test/fuzz/giant-molecules), which
 * leave its reaction engine unusable for the rest of the call. Parent structures of real compounds are far
 * smaller, so larger inputs are refused up front.
 */
export const STANDARDIZE_MAX_ATOMS = 500;

/**
 * What standardize answers for a molecule parsed from `smiles` (at most STANDARDIZE_MAX_ATOMS atoms): the pipeline's
 * result, and the parent_smiles it reports, which is the input itself (canonical) when the molecule holds a metal and
 * has no organic parent (keepsItselfAsParent, as on every tool's parent: true). Atom map numbers (attachment points)
 * ride through as isotopes and come back on every SMILES. canvas_annotate's parent_smiles and standardized_smiles
 * columns are this function's parent.
 */
export function standardizeMolecule(
  rdkit: RDKit,
  mol: RDKitMol,
  smiles: string,
  options: StandardizeOptions,
): { result: StandardizeResult; parent: string; kept: boolean } {
  const result = keepingAtomMaps(rdkit, mol, (m) => standardize(rdkit, m, smiles, options));
  const kept = keepsItselfAsParent(rdkit, mol, result.parent);
  return { result, parent: kept ? canonicalOutput(rdkit, mol.get_smiles()) : result.parent, kept };
}

/**
 * The parent_smiles the standardize tool answers with its defaults, for a molecule already read from `text`
 * (canvas_import standardises its records with it on the one parse each record gets). Refuses a molecule over
 * STANDARDIZE_MAX_ATOMS atoms as the tool does (MOLECULE_TOO_LARGE).
 */
export function defaultParentOf(rdkit: RDKit, mol: RDKitMol, text: string): string {
  const atoms = mol.get_num_atoms();
  if (atoms > STANDARDIZE_MAX_ATOMS) {
    throw new ToolError("MOLECULE_TOO_LARGE", `Molecule has ${atoms} atoms; standardisation accepts at most ${STANDARDIZE_MAX_ATOMS}`, {
      atom_count: atoms,
      max_atoms: STANDARDIZE_MAX_ATOMS,
    });
  }
  return standardizeMolecule(rdkit, mol, text, { stripSalts: true, largestFragment: true, neutralize: true }).parent;
}
