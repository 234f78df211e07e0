/**
 * Matched molecular pairs (Hussain & Rea, J. Chem. Inf. Model. 2010, 50, 339-348), on RDKit's MMPA
 * fragmentation (rdMMPA.FragmentMol; MinimalLib get_mmpa_frags) with its default cut pattern (acyclic single
 * bonds from a neutral, not doubly bonded-to-heteroatom carbon: [#6+0;!$(*=,#[!#6])]!@!=!#[*]) and
 * maxCutBonds 20.
 *
 * Each fragmentation splits a molecule into a constant part and a variable part: with one cut the two pieces
 * take either role; with two or three cuts the pieces left at the ends (the side chains) are the constant
 * part and the piece between the cuts (RDKit's "core") is the variable one. Two molecules sharing a
 * constant part with different variable parts are a matched pair, and the transformation is the variable
 * part of one to that of the other. A hydrogen is also a variable part (as in Hussain & Rea): a molecule
 * whose canonical SMILES equals a single-cut constant part with its attachment replaced by hydrogen pairs
 * with the molecule that part came from ([H][*:1]).
 *
 * Attachment labels are canonical: a constant part's pieces are sorted by their SMILES without labels and
 * numbered 1, 2, 3 in that order (the variable part's labels follow), and where equal pieces leave a choice,
 * the numbering giving the smallest variable SMILES is taken, so the same constant part keys the same entry
 * in every molecule.
 */
import type { RDKit, RDKitMol } from "./rdkit.js";

/** RDKit's FragmentMol default maxCutBonds: molecules with more cuttable bonds are not fragmented. */
const MMPA_MAX_CUT_BONDS = 20;

/** One fragmentation as RDKit answers it: core "" for a single cut; side chains joined by ".". */
export interface RawFragment {
  core: string;
  chains: string;
}

/** RDKit's fragmentation of `mol` with minCuts 1 and maxCuts `maxCuts`, as (core, side chains) SMILES, in RDKit's order. */
export function fragmentMol(mol: RDKitMol, maxCuts: number, maxCutBonds = MMPA_MAX_CUT_BONDS): RawFragment[] {
  type List = { size(): number; at(i: number): RDKitMol | null; delete(): void } | null;
  const frags = mol.get_mmpa_frags(1, maxCuts, maxCutBonds) as { cores: List; sidechains: List } | null;
  const out: RawFragment[] = [];
  // Without a cuttable bond (or past maxCutBonds) MinimalLib answers null lists.
  if (!frags?.cores || !frags.sidechains) {
    frags?.cores?.delete();
    frags?.sidechains?.delete();
    return out;
  }
  try {
    const n = frags.cores.size();
    for (let i = 0; i < n; i++) {
      const core = frags.cores.at(i);
      const chains = frags.sidechains.at(i);
      try {
        out.push({ core: core ? core.get_smiles() : "", chains: chains ? chains.get_smiles() : "" });
      } finally {
        core?.delete();
        chains?.delete();
      }
    }
  } finally {
    frags.cores.delete();
    frags.sidechains.delete();
  }
  return out;
}

/** A molecule split into a constant and a variable part, with canonical attachment labels. */
export interface Cut {
  constant: string;
  variable: string;
  cuts: number;
  /** Heavy atoms of the variable part (its dummies not counted). */
  variableAtoms: number;
}

const LABEL = /\[\*:(\d+)\]/g;

/**
 * The variable part of a hydrogen replaced by a group (Hussain-Rea's single cut at a hydrogen), as canonical_smiles
 * writes it: Contrib/mmpa's indexing.py writes `[*:1][H]`, which RDKit reads back as `[H][*:1]`.
 */
const HYDROGEN_VARIABLE = "[H][*:1]";

/** Atoms of a fragment SMILES other than its attachment dummies (as Contrib/mmpa indexing.py counts them); cached. */
function variableSize(rdkit: RDKit, smiles: string, cache: Map<string, number>): number {
  const held = cache.get(smiles);
  if (held !== undefined) return held;
  const mol = rdkit.get_mol(smiles);
  let n: number;
  try {
    n = mol && mol.is_valid() ? mol.get_num_atoms() - (smiles.match(/\*/g) ?? []).length : 0;
  } finally {
    mol?.delete();
  }
  cache.set(smiles, n);
  return n;
}

/** Canonical SMILES by RDKit (labels included); undefined if RDKit cannot read it. */
function canonical(rdkit: RDKit, smiles: string, cache: Map<string, string | undefined>): string | undefined {
  if (cache.has(smiles)) return cache.get(smiles);
  const mol = rdkit.get_mol(smiles);
  let out: string | undefined;
  try {
    out = mol && mol.is_valid() ? mol.get_smiles() : undefined;
  } finally {
    mol?.delete();
  }
  cache.set(smiles, out);
  return out;
}

function relabel(smiles: string, map: ReadonlyMap<number, number>): string {
  return smiles.replace(LABEL, (_, n: string) => `[*:${map.get(Number(n)) ?? Number(n)}]`);
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  const out: T[][] = [];
  items.forEach((x, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

/** The constant/variable splits of one RDKit fragmentation, canonically labelled. */
export function cutsOf(rdkit: RDKit, frag: RawFragment, cache: Map<string, string | undefined>, sizes: Map<string, number> = new Map()): Cut[] {
  const heavyAtoms = (smiles: string) => variableSize(rdkit, smiles, sizes);
  const pieces = frag.chains.split(".");
  if (frag.core === "") {
    // A single cut: two pieces, each with [*:1]; either is the constant part.
    if (pieces.length !== 2) return [];
    const [a, b] = pieces as [string, string];
    return [
      { constant: a, variable: b, cuts: 1, variableAtoms: heavyAtoms(b) },
      { constant: b, variable: a, cuts: 1, variableAtoms: heavyAtoms(a) },
    ];
  }
  // Two or three cuts: the side chains are the constant part, each with one label.
  const chains = pieces.map((p) => {
    const label = Number(/\[\*:(\d+)\]/.exec(p)?.[1] ?? 0);
    const bare = canonical(rdkit, p.replace(LABEL, "[*]"), cache) ?? p;
    return { label, bare };
  });
  chains.sort((x, y) => (x.bare < y.bare ? -1 : x.bare > y.bare ? 1 : 0));
  // Groups of equal pieces may be numbered in any order among themselves: try each and keep the smallest variable SMILES.
  const groups: number[][] = [];
  chains.forEach((c, i) => {
    const last = groups[groups.length - 1];
    if (last !== undefined && chains[last[0]!]!.bare === c.bare) last.push(i);
    else groups.push([i]);
  });
  let orders: number[][] = [[]];
  for (const g of groups) orders = orders.flatMap((prefix) => permutations(g).map((p) => [...prefix, ...p]));
  let best: { constant: string; variable: string } | undefined;
  for (const order of orders) {
    // order[k] is the chain that gets label k + 1.
    const map = new Map<number, number>();
    order.forEach((chain, k) => map.set(chains[chain]!.label, k + 1));
    const variable = canonical(rdkit, relabel(frag.core, map), cache);
    if (variable === undefined) continue;
    if (best === undefined || variable < best.variable) {
      const constant = chains.map((c, k) => c.bare.replace(/\[\*\]|\*/, `[*:${k + 1}]`)).join(".");
      best = { constant, variable };
    }
  }
  if (best === undefined) return [];
  // The constant pieces in label order, each written canonically with its label.
  const constant = best.constant
    .split(".")
    .map((p) => canonical(rdkit, p, cache) ?? p)
    .join(".");
  return [{ constant, variable: best.variable, cuts: pieces.length, variableAtoms: heavyAtoms(best.variable) }];
}

export interface MatchedPair {
  /** Input indices: the transformation turns `from` into `to`. */
  from: number;
  to: number;
  constant: string;
  /** Reaction SMILES variable(from)>>variable(to). */
  transformation: string;
  cuts: number;
}

/**
 * The matched pairs of `smiles` (canonical SMILES, undefined for entries that did not parse) given each
 * molecule's cuts. Each pair of molecules appears once, with its smallest variable part (fewest variable
 * heavy atoms, then fewest cuts, then the smaller transformation SMILES); `from` and `to` are ordered so
 * that the transformation reads from the variable with the smaller SMILES (so A>>B and B>>A never both
 * occur). Ordered by from, then to.
 */
export function pairMolecules(
  rdkit: RDKit,
  smiles: ReadonlyArray<string | undefined>,
  cutsPerMol: ReadonlyArray<readonly Cut[]>,
  cache: Map<string, string | undefined>,
  maxVariableAtoms: number,
): Array<MatchedPair & { size: number }> {
  const byConstant = new Map<string, Array<{ mol: number; variable: string; cuts: number; size: number }>>();
  const add = (constant: string, entry: { mol: number; variable: string; cuts: number; size: number }) => {
    const list = byConstant.get(constant) ?? [];
    list.push(entry);
    byConstant.set(constant, list);
  };
  const moleculeIndex = new Map<string, number[]>();
  smiles.forEach((s, i) => {
    if (s === undefined) return;
    const list = moleculeIndex.get(s) ?? [];
    list.push(i);
    moleculeIndex.set(s, list);
  });
  cutsPerMol.forEach((cuts, mol) => {
    const seen = new Set<string>();
    for (const c of cuts) {
      const key = `${c.constant}\t${c.variable}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (c.variableAtoms > maxVariableAtoms) continue;
      add(c.constant, { mol, variable: c.variable, cuts: c.cuts, size: c.variableAtoms });
      if (c.cuts === 1) {
        // Hydrogen as the variable part: the constant part capped with H is itself an input molecule.
        const parent = canonical(rdkit, c.constant.replace("[*:1]", "[H]"), cache);
        for (const other of parent === undefined ? [] : (moleculeIndex.get(parent) ?? [])) {
          if (other === mol) continue;
          const hkey = `${c.constant}\t[H]\t${other}`;
          if (seen.has(hkey)) continue;
          seen.add(hkey);
          add(c.constant, { mol: other, variable: HYDROGEN_VARIABLE, cuts: 1, size: 0 });
        }
      }
    }
  });
  const best = new Map<string, MatchedPair & { size: number }>();
  for (const [constant, entries] of byConstant) {
    for (let x = 0; x < entries.length; x++) {
      for (let y = x + 1; y < entries.length; y++) {
        const p = entries[x]!;
        const q = entries[y]!;
        if (p.mol === q.mol || p.variable === q.variable) continue;
        const [from, to] = p.variable < q.variable ? [p, q] : [q, p];
        const candidate = {
          from: from.mol,
          to: to.mol,
          constant,
          transformation: `${from.variable}>>${to.variable}`,
          cuts: p.cuts,
          size: Math.max(p.size, q.size),
        };
        const key = `${Math.min(p.mol, q.mol)},${Math.max(p.mol, q.mol)}`;
        const held = best.get(key);
        if (held === undefined || better(candidate, held)) best.set(key, candidate);
      }
    }
  }
  return [...best.values()].sort((a, b) => a.from - b.from || a.to - b.to);
}

function better(a: MatchedPair & { size: number }, b: MatchedPair & { size: number }): boolean {
  if (a.size !== b.size) return a.size < b.size;
  if (a.cuts !== b.cuts) return a.cuts < b.cuts;
  if (a.transformation !== b.transformation) return a.transformation < b.transformation;
  return a.constant < b.constant;
}
