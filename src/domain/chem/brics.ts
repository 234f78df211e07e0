/**
 * BRICS (Breaking of Retrosynthetically Interesting Chemical Substructures; Degen, Wegscheid-Gerlach,
 * Zaliani & Rarey, ChemMedChem 2008, 3, 1503-1507, doi:10.1002/cmdc.200800178), as RDKit's rdkit.Chem.BRICS
 * applies it. The rule tables (18 link-atom environments L1..L16b and 46 allowed label pairs with their bond
 * type) are read from assets/brics.json, which scripts/build-brics-asset.py writes from RDKit's module.
 *
 * Three operations, each equal to RDKit's:
 *
 *   findBricsBonds    FindBRICSBonds: every rule's bond pattern '[$(envA)]<bond>;!@[$(envB)]' is matched in
 *                     rule order (a rule is skipped when either environment matches nowhere in the molecule),
 *                     unique matches (at most 1000 per pattern, RDKit's default), and a bond already taken
 *                     by an earlier match, in either direction, is skipped.
 *   cutSmiles         BreakBRICSBonds(mol, [bond]) for one bond, as canonical SMILES (BricsCutter holds the
 *                     molecule): the bond is removed and each of its atoms gets a new dummy atom, bonded with
 *                     the removed bond's type, whose isotope is the label of the environment of the atom it is
 *                     bonded to ([1*]C(C)=O is the L1 side of an amide cut). Done by editing the molecule's
 *                     MolJSON: the cut bond keeps its place in the bond list (re-pointed to the first dummy)
 *                     and the second dummy's bond follows it immediately, so each cut atom keeps its neighbour
 *                     order and its tetrahedral parity. That is what RDKit's FragmentOnBonds does; RDKit's own
 *                     single-bond path (an EditableMol RemoveBond plus AddBond) moves the new bond to the end
 *                     of the atom's list without adjusting the parity, which inverts a cut stereocentre whose
 *                     cut bond was not its last one (shown in the oracle test). MinimalLib's stereo perception
 *                     after reading MolJSON drops cis/trans double bonds, so a molecule with stereo is read
 *                     without it, written as SMILES, and read again with it.
 *   bricsDecompose    BRICSDecompose(mol) with its defaults (minFragmentSize 1, keepNonLeafNodes false,
 *                     singlePass false): RDKit's algorithm step for step. The 14 rule groups are applied in
 *                     order; within a group a pool of fragments, keyed by canonical SMILES, is worked through:
 *                     each fragment is run through every reaction of the group
 *                     ('[$(envA):1]<bond>;!@[$(envB):2]>>[a*]-[*:1].[b*]-[*:2]', one bond cut per product
 *                     set), new products join the pool, and a fragment that any reaction cut leaves it. The
 *                     fragments left after the last group are the result. As natively, the fragments are the
 *                     reaction products themselves (not re-read from SMILES), so each atom keeps its own
 *                     implicit-H flag. The reactions bond every dummy by a single bond (a C=C cut gives
 *                     [7*]CC, not [7*]=CC) and environments are re-matched on the fragments, dummies included,
 *                     so the result can differ from cutting all bonds of findBricsBonds at once; it is RDKit's.
 *                     The work grows with the number of partial decompositions (natively minutes for some
 *                     sugars with 40 BRICS bonds), hence the deadline and the fragment cap.
 *
 * Every RDKit handle is deleted on every path; the compiled environment and bond queries and the reactions
 * are made once per RDKit module (per worker thread) and kept.
 */
import { readFileSync } from "node:fs";
import type { Reaction } from "@rdkit/rdkit";
import { assetPath } from "../assets.js";
import { ToolError } from "../errors.js";
import { cloneGraph, graphJson, molGraph, type Graph, type GraphAtom, type GraphBond } from "./graph.js";
import { hasMatch, substructMatches } from "./match.js";
import type { RDKit, RDKitMol } from "./rdkit.js";
import { compileAll, compiledPerRdkit } from "./rdkit-cache.js";

export const BRICS_CITATION =
  "Degen, J.; Wegscheid-Gerlach, C.; Zaliani, A.; Rarey, M. On the Art of Compiling and Using 'Drug-Like' Chemical " +
  "Fragment Spaces. ChemMedChem 2008, 3, 1503-1507. doi:10.1002/cmdc.200800178";

/** RDKit's default cap on matches per pattern (SubstructMatchParameters.maxMatches) and products per reaction. */
const RDKIT_MAX_MATCHES = 1000;

// ---- the rule tables ----

interface BricsRule {
  /** Rule group (the first environment's label group, e.g. "L1"); groups run in asset order. */
  group: string;
  /** Environment names of the two link atoms, e.g. ["L1", "L5"]. */
  environments: [string, string];
  /** Bond type of the pattern: "-" single, "=" double. */
  bond: "-" | "=";
  /** Dummy labels (isotopes) of the two sides, the environment numbers without their letter. */
  dummyLabels: [number, number];
  bondSmarts: string;
  reactionSmarts: string;
}

export interface BricsTables {
  /** Environment name to SMARTS, in RDKit's table order. */
  environments: ReadonlyMap<string, string>;
  groups: ReadonlyArray<{ name: string; rules: readonly BricsRule[] }>;
  /** All rules, groups flattened in order. */
  rules: readonly BricsRule[];
}

interface BricsAsset {
  environments: Record<string, string>;
  rule_groups: Array<{
    group: string;
    rules: Array<{ labels: [string, string]; bond: string; dummy_labels: [number, number]; bond_smarts: string; reaction_smarts: string }>;
  }>;
}

function loadTables(): BricsTables {
  const file = assetPath("brics.json");
  const data = JSON.parse(readFileSync(file, "utf8")) as Partial<BricsAsset>;
  const fail = (why: string): never => {
    throw new Error(`Malformed BRICS asset ${file} (${why}); regenerate it with scripts/build-brics-asset.py`);
  };
  if (typeof data.environments !== "object" || data.environments === null) fail("no environments");
  if (!Array.isArray(data.rule_groups) || data.rule_groups.length === 0) fail("no rule groups");
  const environments = new Map<string, string>();
  for (const [name, smarts] of Object.entries(data.environments!)) {
    if (typeof smarts !== "string" || smarts.length === 0) fail(`environment ${name}`);
    environments.set(name, smarts);
  }
  const groups: Array<{ name: string; rules: BricsRule[] }> = [];
  const rules: BricsRule[] = [];
  for (const g of data.rule_groups!) {
    if (typeof g.group !== "string" || !Array.isArray(g.rules) || g.rules.length === 0) fail("rule group");
    const groupRules: BricsRule[] = [];
    for (const r of g.rules) {
      const [ea, eb] = (r.labels ?? []).map((l) => `L${l}`);
      const ok =
        ea !== undefined &&
        eb !== undefined &&
        environments.has(ea) &&
        environments.has(eb) &&
        (r.bond === "-" || r.bond === "=") &&
        Array.isArray(r.dummy_labels) &&
        r.dummy_labels.length === 2 &&
        r.dummy_labels.every((n) => Number.isInteger(n) && n > 0) &&
        typeof r.bond_smarts === "string" &&
        typeof r.reaction_smarts === "string";
      if (!ok) fail(`rule in group ${g.group}`);
      const rule: BricsRule = {
        group: g.group,
        environments: [ea!, eb!],
        bond: r.bond as "-" | "=",
        dummyLabels: [r.dummy_labels[0], r.dummy_labels[1]],
        bondSmarts: r.bond_smarts,
        reactionSmarts: r.reaction_smarts,
      };
      groupRules.push(rule);
      rules.push(rule);
    }
    groups.push({ name: g.group, rules: groupRules });
  }
  return { environments, groups, rules };
}

let tables: BricsTables | undefined;

/** The BRICS tables of assets/brics.json, loaded on first use. */
export function bricsTables(): BricsTables {
  tables ??= loadTables();
  return tables;
}

// ---- compiled queries and reactions: once per RDKit module, never deleted ----

interface Compiled {
  environments: Map<string, RDKitMol>;
  /** Bond pattern of each rule, aligned with bricsTables().rules. */
  bondQueries: RDKitMol[];
  /** Reaction of each rule, aligned with bricsTables().rules. */
  reactions: Reaction[];
}

const compiledFor = compiledPerRdkit((rdkit): Compiled => {
  const t = bricsTables();
  return compileAll(rdkit, "BRICS", (c) => {
    const environments = new Map<string, RDKitMol>();
    for (const [name, smarts] of t.environments) environments.set(name, c.query(smarts));
    const bondQueries = t.rules.map((r) => c.query(r.bondSmarts));
    const reactions = t.rules.map((r) => c.reaction(r.reactionSmarts));
    return { environments, bondQueries, reactions };
  });
});

// ---- FindBRICSBonds ----

export interface BricsBond {
  /** The two atoms, in the order of the matching pattern (environment A first). */
  atoms: [number, number];
  /** Dummy labels of the two sides, aligned with atoms. */
  labels: [number, number];
  /** Environment names, aligned with atoms (e.g. ["L7a", "L7b"]). */
  environments: [string, string];
  /** Bond type: "-" single or "=" double. */
  bond: "-" | "=";
}

/** The bonds BRICS would cut, in FindBRICSBonds' order and with its deduplication. */
export function findBricsBonds(rdkit: RDKit, mol: RDKitMol): BricsBond[] {
  const t = bricsTables();
  const c = compiledFor(rdkit);
  const present = new Map<string, boolean>();
  const envPresent = (name: string): boolean => {
    let v = present.get(name);
    if (v === undefined) {
      v = hasMatch(mol, c.environments.get(name)!);
      present.set(name, v);
    }
    return v;
  };
  const done = new Set<string>();
  const out: BricsBond[] = [];
  t.rules.forEach((rule, i) => {
    if (!envPresent(rule.environments[0]) || !envPresent(rule.environments[1])) return;
    for (const match of substructMatches(mol, c.bondQueries[i]!, RDKIT_MAX_MATCHES)) {
      const [a, b] = match;
      if (a === undefined || b === undefined) continue;
      if (done.has(`${a},${b}`) || done.has(`${b},${a}`)) continue;
      done.add(`${a},${b}`);
      out.push({ atoms: [a, b], labels: [...rule.dummyLabels], environments: [...rule.environments], bond: rule.bond });
    }
  });
  return out;
}

// ---- single cuts by graph editing ----

/** The molecule as graph.ts reads it, cut on the graph and written back with graphJson (one reader, one writer). */
export class BricsCutter {
  /** The molecule as graph.ts reads RDKit JSON (the one reader), in RDKit's atom and bond order. */
  private readonly graph: Graph;
  private readonly bondIndex = new Map<string, number>();
  /** Whether any atom or bond carries stereo (then a cut is read twice, see cutSmiles). */
  readonly hasStereo: boolean;

  constructor(mol: RDKitMol) {
    const graph = molGraph(mol);
    this.graph = { atoms: graph.atoms, bonds: graph.bonds };
    const specified = (v: string): boolean => v !== "unspecified";
    this.hasStereo = graph.atoms.some((a) => specified(a.stereo)) || graph.bonds.some((b) => specified(b.stereo));
    graph.bonds.forEach((b, i) => {
      this.bondIndex.set(`${b.begin},${b.end}`, i);
      this.bondIndex.set(`${b.end},${b.begin}`, i);
    });
  }

  /** MolJSON of the molecule with `bond` cut and the two labelled dummies added (see the module comment). */
  cutJson(bond: BricsBond): string {
    const [a, b] = bond.atoms;
    const k = this.bondIndex.get(`${a},${b}`);
    if (k === undefined) throw new Error(`No bond between atoms ${a} and ${b}`);
    const g = cloneGraph(this.graph);
    const n = g.atoms.length;
    const bo = g.bonds[k]!.bo;
    const dummy = (label: number): GraphAtom => ({ z: 0, chg: 0, isotope: label, hs: 0, nRad: 0, stereo: "unspecified", aromatic: false });
    g.atoms.push(dummy(bond.labels[0]), dummy(bond.labels[1]));
    for (const x of g.bonds) {
      // As RDKit's removeBond: a double bond next to the cut loses its stereo if a reference atom was across it.
      const refs = x.stereoAtoms;
      const ends = [x.begin, x.end];
      if (refs && ((ends.includes(a) && refs.includes(b)) || (ends.includes(b) && refs.includes(a)))) {
        x.stereo = "unspecified";
        delete x.stereoAtoms;
      }
    }
    const cut = (begin: number, end: number): GraphBond => ({ begin, end, bo, aromatic: false, stereo: "unspecified" });
    g.bonds.splice(k, 1, cut(a, n), cut(b, n + 1));
    return graphJson(g);
  }
}

/**
 * MolJSON reading options. MinimalLib's stereo assignment after reading MolJSON drops a double bond's
 * cis/trans (it looks for bond directions, which MolJSON does not carry); without it the "stereo" fields
 * of atoms and bonds are kept as written, as a native edit of the molecule keeps them. CIP labels are not
 * needed for SMILES, and assigning them is most of the reading time of a large molecule.
 */
const FROM_JSON = JSON.stringify({ assignStereo: false, assignCIPLabels: false });
/** SMILES reading options for canonical SMILES only (CIP labels play no part in it). */
const FOR_SMILES = JSON.stringify({ assignCIPLabels: false });
/** A reaction product written with every H count explicit (see bricsDecompose). */
const RAW_SMILES = JSON.stringify({ allHsExplicit: true });

/** Builds a molecule from MolJSON (sanitised); throws when RDKit refuses it. Caller deletes. */
function molFromJson(rdkit: RDKit, json: string): RDKitMol {
  const mol = rdkit.get_mol(json, FROM_JSON);
  if (!mol || !mol.is_valid()) {
    mol?.delete();
    // Found by the fuzzer: RDKit reads some impossible structures (an aromatic atom with a triple bond)
    // whose fragments, once cut, no longer sanitise. The input is at fault, so the caller gets a typed error.
    throw new ToolError(
      "INVALID_SMILES",
      "RDKit reads this SMILES, but its BRICS fragments do not sanitise (typically an aromatic atom with a triple bond or an impossible valence)",
      { reason: "fragment_not_sanitisable" },
      "Check the bond orders and aromatic (lower-case) atoms, or send a Kekulé SMILES.",
    );
  }
  return mol;
}

/**
 * Canonical SMILES of the molecule with one BRICS bond cut (RDKit's MolToSmiles of BreakBRICSBonds with that
 * bond, parity-correct as FragmentOnBonds): two dot-separated fragments with isotope-labelled dummies.
 */
export function cutSmiles(rdkit: RDKit, cutter: BricsCutter, bond: BricsBond): string {
  if (!cutter.hasStereo) {
    const plain = molFromJson(rdkit, cutter.cutJson(bond));
    try {
      return plain.get_smiles();
    } finally {
      plain.delete();
    }
  }
  // With stereo: read without stereo perception (see FROM_JSON), written out, then read again with RDKit's
  // full stereo perception, so the canonical SMILES is the one RDKit gives this molecule from any input.
  const broken = molFromJson(rdkit, cutter.cutJson(bond));
  let written: string;
  try {
    written = broken.get_smiles();
  } finally {
    broken.delete();
  }
  const reread = rdkit.get_mol(written, FOR_SMILES);
  if (!reread || !reread.is_valid()) {
    reread?.delete();
    throw new Error(`RDKit could not re-read the BRICS cut ${written}`);
  }
  try {
    return reread.get_smiles();
  } finally {
    reread.delete();
  }
}

// ---- BRICSDecompose ----

export interface DecomposeOptions {
  /** performance.now() past which the decomposition stops with TIMEOUT. */
  deadline?: number;
  /** Cap on distinct fragments (nodes) visited; past it, TIMEOUT (the work would not fit any budget). */
  maxNodes?: number;
  /** Called every 100 new fragments with the number visited so far. */
  onProgress?: (nodes: number) => void;
}

export interface DecomposeResult {
  /** The leaf fragments, canonical SMILES, sorted (JavaScript string order, which is Python's for ASCII). */
  fragments: string[];
  /** Distinct fragments (leaves and intermediates) the algorithm visited, the input included. */
  nodes: number;
}

const DEFAULT_MAX_NODES = 50_000;

function decomposeTimeout(message: string, details: Record<string, unknown>): ToolError {
  return new ToolError("TIMEOUT", message, details, "Ask for single cuts (mode 'single', the default) or send a smaller molecule.");
}

/** Builds a sanitised molecule from SMILES; throws when RDKit refuses it. Caller deletes. */
function molFromSmiles(rdkit: RDKit, smiles: string): RDKitMol {
  const mol = rdkit.get_mol(smiles, FOR_SMILES);
  if (!mol || !mol.is_valid()) {
    mol?.delete();
    throw new Error(`RDKit could not sanitise the BRICS fragment ${smiles}`);
  }
  return mol;
}

/**
 * The product sets of one reaction run on `node` (each set is the two sides of one cut), as molecules the
 * caller owns and must delete. They come unsanitised from the reaction, like native RunReactants products.
 */
function reactionProducts(rdkit: RDKit, reaction: Reaction, node: RDKitMol): RDKitMol[][] {
  const sets: RDKitMol[][] = [];
  const reactants = new rdkit.MolList();
  try {
    reactants.append(node);
    const products = reaction.run_reactants(reactants, RDKIT_MAX_MATCHES);
    try {
      for (let s = 0; s < products.size(); s++) {
        const list = products.get(s);
        if (!list) continue;
        try {
          const set: RDKitMol[] = [];
          sets.push(set);
          for (let p = 0; p < list.size(); p++) {
            const prod = list.at(p);
            if (prod) set.push(prod);
          }
        } finally {
          list.delete();
        }
      }
    } finally {
      products.delete();
    }
    return sets;
  } catch (err) {
    for (const set of sets) for (const m of set) m.delete();
    throw err;
  } finally {
    reactants.delete();
  }
}

/** RDKit's BRICSDecompose(mol) with its defaults; see the module comment. */
export function bricsDecompose(rdkit: RDKit, mol: RDKitMol, options: DecomposeOptions = {}): DecomposeResult {
  const t = bricsTables();
  const c = compiledFor(rdkit);
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_NODES;
  // Raw product SMILES -> canonical SMILES of the sanitised product (the same products recur often).
  const canonicalOf = new Map<string, string>();
  const allNodes = new Set<string>();
  // Fragments waiting in this group's pool and in the next one: the only live handles.
  let active = new Map<string, RDKitMol>();
  let next = new Map<string, RDKitMol>();
  let current: RDKitMol | undefined;
  try {
    const rootSmiles = mol.get_smiles();
    allNodes.add(rootSmiles);
    // A copy of the input itself (not re-read from SMILES), so its atoms keep their implicit-H flags.
    const root = mol.copy();
    if (!root) throw new Error("RDKit could not copy the molecule");
    active.set(rootSmiles, root);
    let ruleOffset = 0;
    for (const group of t.groups) {
      while (active.size > 0) {
        if (options.deadline !== undefined && performance.now() > options.deadline) {
          throw decomposeTimeout("The full BRICS decomposition did not finish within its time budget", { fragments_visited: allNodes.size });
        }
        const [nodeSmiles, node] = active.entries().next().value as [string, RDKitMol];
        active.delete(nodeSmiles);
        current = node;
        let matched = false;
        for (let r = 0; r < group.rules.length; r++) {
          // The reaction's reactant template is the rule's bond pattern: match that first (running a reaction
          // costs about twenty substructure searches even when it matches nothing).
          if (!hasMatch(node, c.bondQueries[ruleOffset + r]!)) continue;
          const sets = reactionProducts(rdkit, c.reactions[ruleOffset + r]!, node);
          const adopted = new Set<RDKitMol>();
          try {
            for (const set of sets) {
              // minFragmentSize 1 never refuses a product here: every BRICS link atom is a real atom.
              matched = true;
              for (const prod of set) {
                // Valences and ring/aromaticity perception on the product (it is searched again if kept).
                prod.convert_to_aromatic_form();
                // Every atom's H count written out: an unsanitised product has no radicals assigned yet, so
                // a bracket atom such as [C] would otherwise be written as C.
                const raw = prod.get_smiles(RAW_SMILES);
                let canonical = canonicalOf.get(raw);
                if (canonical === undefined) {
                  // The sanitised product's canonical SMILES, as SanitizeMol + MolToSmiles give it natively.
                  const sanitised = molFromSmiles(rdkit, raw);
                  try {
                    canonical = sanitised.get_smiles();
                  } finally {
                    sanitised.delete();
                  }
                  canonicalOf.set(raw, canonical);
                }
                if (allNodes.has(canonical)) continue;
                // The product itself becomes the fragment, as natively: it keeps each atom's own implicit-H
                // flag (a bracket [CH]= of the input becomes a [CH] radical when a later C=C cut makes it
                // single-bonded, exactly as in RDKit).
                allNodes.add(canonical);
                active.set(canonical, prod);
                adopted.add(prod);
                if (allNodes.size > maxNodes) {
                  throw decomposeTimeout(`The full BRICS decomposition visited more than ${maxNodes} fragments`, {
                    fragments_visited: allNodes.size,
                    max_fragments: maxNodes,
                  });
                }
                if (allNodes.size % 100 === 0) options.onProgress?.(allNodes.size);
              }
            }
          } finally {
            for (const set of sets) for (const m of set) if (!adopted.has(m)) m.delete();
          }
        }
        current = undefined;
        if (matched) node.delete();
        else next.set(nodeSmiles, node);
      }
      [active, next] = [next, active];
      ruleOffset += group.rules.length;
    }
    return { fragments: [...active.keys()].sort(), nodes: allNodes.size };
  } finally {
    current?.delete();
    for (const m of active.values()) m.delete();
    for (const m of next.values()) m.delete();
  }
}
