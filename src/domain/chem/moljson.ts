/**
 * MolJSON: the project's explicit, documented molecule graph (docs/moljson.md), and its conversions to and
 * from RDKit.
 *
 * Out: RDKit's get_json() (rdkitjson, Kekulé bond orders plus an aromaticity extension) is mapped onto
 * MolJSON, one atom and one bond for each of RDKit's, in RDKit's order.
 * In: a MolJSON document is validated here with a JSON Pointer to the first bad field (INVALID_MOLJSON),
 * turned back into an rdkitjson document, read with get_mol(), and written as canonical SMILES.
 *
 * Stereo is carried so that the round trip keeps RDKit's canonical isomeric SMILES:
 *  - tetrahedral centres as {winding, neighbors}: looking from neighbors[0] toward the atom, the other listed
 *    neighbours turn clockwise (cw) or anticlockwise (ccw); an implicit hydrogen (or the lone pair of a
 *    three-coordinate centre) counts as the last neighbour. RDKit's own tag is relative to the order of the
 *    atom's bonds (implicit H last, checked in test/domain/chem/moljson.test.ts); listing the neighbours
 *    explicitly keeps the meaning when an agent reorders or adds bonds.
 *  - double bonds as {config: cis|trans, atoms: [a, d]} with a bonded to the bond's first atom and d to its
 *    second, as RDKit's stereoAtoms.
 */
import { ToolError } from "../errors.js";
import {
  adjacency,
  atomicNumber,
  BO_DATIVE,
  elementSymbol,
  molGraph,
  neighbourLists,
  RDKIT_JSON_DEFAULTS,
  type MolGraph,
  type RdkitJsonAtom,
  type RdkitJsonBond,
  type RdkitJsonMolecule,
} from "./graph.js";
import { withErrorLog, type RDKit, type RDKitMol } from "./rdkit.js";

export const MOLJSON_FORMAT = "chematic-moljson";
export const MOLJSON_VERSION = 1;
/** Atoms a MolJSON document may hold (input), and the most smiles_to_moljson writes (so replies stay far under 1 MiB). */
export const MOLJSON_MAX_ATOMS = 10_000;
export const MOLJSON_MAX_BONDS = 20_000;
export const MOLJSON_OUTPUT_MAX_ATOMS = 2_000;

export type Winding = "cw" | "ccw";

export interface MolJsonChirality {
  winding: Winding;
  neighbors: number[];
}

export interface MolJsonAtom {
  element: string;
  charge: number;
  isotope: number | null;
  implicit_hydrogens: number;
  aromatic: boolean;
  chirality: MolJsonChirality | null;
  /** Present only when non-zero. */
  radical_electrons?: number;
}

export interface MolJsonBondStereo {
  config: "cis" | "trans";
  atoms: [number, number];
}

export interface MolJsonBond {
  atoms: [number, number];
  /** Kekulé order 1, 2 or 3; on input 1.5 also means "aromatic, Kekulé order unknown". */
  order: 1 | 2 | 3 | 1.5;
  aromatic: boolean;
  stereo: MolJsonBondStereo | null;
  /** Present (true) only for dative bonds, atoms[0] being the donor. */
  dative?: boolean;
}

export interface MolJson {
  format: typeof MOLJSON_FORMAT;
  version: typeof MOLJSON_VERSION;
  atoms: MolJsonAtom[];
  bonds: MolJsonBond[];
}

// ---------------------------------------------------------------------------------------------------------
// JSON Schema (2020-12), used as smiles_to_moljson's output schema and documented in docs/moljson.md.

const ELEMENT_PATTERN = "^(\\*|[A-Z][a-z]?)$";

export const MOLJSON_SCHEMA: Record<string, unknown> = {
  type: "object",
  description:
    "MolJSON v1 (chematic-moljson): a molecule as an explicit atom/bond graph. Atom and bond indices are 0-based positions in " +
    "`atoms`; bond orders are Kekulé (1, 2, 3) with a separate aromatic flag. See docs/moljson.md.",
  properties: {
    format: { type: "string", const: MOLJSON_FORMAT, description: 'Always "chematic-moljson".' },
    version: { type: "integer", const: MOLJSON_VERSION, description: "Schema version, 1." },
    atoms: {
      type: "array",
      maxItems: MOLJSON_MAX_ATOMS,
      description: "Atoms, including any explicit hydrogen atoms of the input; index = position.",
      items: {
        type: "object",
        properties: {
          element: { type: "string", pattern: ELEMENT_PATTERN, maxLength: 2, description: 'Element symbol (C, N, Cl, ...); "*" for a dummy/attachment atom.' },
          charge: { type: "integer", minimum: -128, maximum: 127, description: "Formal charge (RDKit keeps it in 8 bits; real ones are small)." },
          isotope: {
            // RDKit keeps a mass number in 16 bits (a SMILES [65536C] reads as natural carbon), and takes any
            // value up to that, [1013CH4] included: the range is RDKit's, so every molecule it parses is written.
            description: "Mass number (1-65535, RDKit's range), or null for natural abundance.",
            anyOf: [{ type: "integer", minimum: 1, maximum: 65_535 }, { type: "null" }],
          },
          implicit_hydrogens: { type: "integer", minimum: 0, maximum: 16, description: "Hydrogens on this atom that are not atoms of the graph." },
          aromatic: { type: "boolean", description: "Atom is aromatic (RDKit's aromaticity model)." },
          radical_electrons: {
            type: "integer",
            minimum: 1,
            maximum: 255,
            description: "Unpaired electrons; present only when non-zero (RDKit derives them for odd charges: [C+15] has 19).",
          },
          chirality: {
            description:
              "Tetrahedral stereo, or null. Looking from neighbors[0] toward this atom, the other neighbours in list order (an implicit " +
              "hydrogen or a lone pair counting as the last one) turn clockwise (cw) or anticlockwise (ccw).",
            anyOf: [
              { type: "null" },
              {
                type: "object",
                properties: {
                  winding: { type: "string", enum: ["cw", "ccw"], description: "cw (SMILES @@) or ccw (SMILES @) for this neighbour order." },
                  neighbors: {
                    type: "array",
                    minItems: 3,
                    maxItems: 4,
                    items: { type: "integer", minimum: 0 },
                    description: "Indices of every atom bonded to this one, in the order the winding refers to.",
                  },
                },
                required: ["winding", "neighbors"],
                additionalProperties: false,
              },
            ],
          },
        },
        required: ["element", "charge", "isotope", "implicit_hydrogens", "aromatic", "chirality"],
        additionalProperties: false,
      },
    },
    bonds: {
      type: "array",
      maxItems: MOLJSON_MAX_BONDS,
      description: "Bonds between atoms; index = position.",
      items: {
        type: "object",
        properties: {
          atoms: {
            type: "array",
            minItems: 2,
            maxItems: 2,
            items: { type: "integer", minimum: 0 },
            description: "The two atom indices (for a dative bond, donor first).",
          },
          order: {
            type: "number",
            enum: [1, 2, 3, 1.5],
            description: "Kekulé bond order 1, 2 or 3 (written as such; 1.5 is accepted on input for an aromatic bond of unknown Kekulé order).",
          },
          aromatic: { type: "boolean", description: "Bond is aromatic." },
          dative: { type: "boolean", const: true, description: "Present only for a dative (coordinate) bond, atoms[0] -> atoms[1]." },
          stereo: {
            description: "Double-bond geometry, or null: the reference atoms a (bonded to atoms[0]) and d (bonded to atoms[1]) are cis or trans.",
            anyOf: [
              { type: "null" },
              {
                type: "object",
                properties: {
                  config: { type: "string", enum: ["cis", "trans"], description: "cis: a and d on the same side; trans: opposite sides." },
                  atoms: {
                    type: "array",
                    minItems: 2,
                    maxItems: 2,
                    items: { type: "integer", minimum: 0 },
                    description: "[a, d]: a neighbour of atoms[0] and a neighbour of atoms[1].",
                  },
                },
                required: ["config", "atoms"],
                additionalProperties: false,
              },
            ],
          },
        },
        required: ["atoms", "order", "aromatic", "stereo"],
        additionalProperties: false,
      },
    },
  },
  required: ["format", "version", "atoms", "bonds"],
  additionalProperties: false,
};

// ---------------------------------------------------------------------------------------------------------
// From RDKit (graph.ts reads its JSON).

/** The MolJSON of a parsed molecule (one get_json() call). Throws when RDKit writes something MolJSON v1 cannot carry. */
export function molToMolJson(mol: RDKitMol): MolJson {
  return fromGraph(molGraph(mol));
}

/**
 * The MolJSON plus 2D depiction coordinates (RDKit's set_new_coords, the same layout depictions and molblocks
 * use), from one get_json() call. This sets coordinates on `mol`.
 */
export function molToMolJsonWith2dCoords(mol: RDKitMol): { moljson: MolJson; coords: Array<[number, number]> } {
  mol.set_new_coords();
  const graph = molGraph(mol);
  const moljson = fromGraph(graph);
  if (!graph.coords) throw new Error("RDKit wrote no 2D coordinates after set_new_coords()");
  return { moljson, coords: graph.coords };
}

function fromGraph(graph: MolGraph): MolJson {
  const neighbours = adjacency(graph);

  const atoms: MolJsonAtom[] = graph.atoms.map((a, i) => {
    const atom: MolJsonAtom = {
      element: elementSymbol(a.z),
      charge: a.chg,
      isotope: a.isotope > 0 ? a.isotope : null,
      implicit_hydrogens: a.hs,
      aromatic: a.aromatic,
      chirality: a.stereo === "cw" || a.stereo === "ccw" ? { winding: a.stereo, neighbors: [...neighbours[i]!] } : null,
    };
    if (a.nRad > 0) atom.radical_electrons = a.nRad;
    return atom;
  });

  const bonds: MolJsonBond[] = graph.bonds.map((b, i) => {
    let order: 1 | 2 | 3;
    let dative = false;
    if (b.bo === 1 || b.bo === 2 || b.bo === 3) order = b.bo;
    else if (b.bo === BO_DATIVE) {
      order = 1;
      dative = true;
    } else {
      // Found by test/fuzz (e.g. "C$[Se]", a quadruple bond; "C:[*]", a zero-order one): RDKit accepts bonds
      // MolJSON v1 cannot write. A plain Error here became "Internal error"; the caller gets a typed answer.
      const kind = b.bo === 0 ? "a zero-order bond" : b.bo === 4 ? "a quadruple bond ($)" : `a bond of RDKit order ${b.bo}`;
      throw new ToolError(
        "INVALID_SMILES",
        `This molecule has ${kind} (bond ${i}, atoms ${b.begin}-${b.end}), which MolJSON v1 cannot represent: it has single, double, triple, aromatic and dative bonds only`,
        { argument: "smiles", reason: "bond_order_not_in_moljson", bond_index: i, rdkit_bond_order: b.bo ?? null },
        "Write the bond as single, double, triple, aromatic or dative, or ask for another representation (canonical_smiles, molblock).",
      );
    }
    const stereo: MolJsonBondStereo | null =
      (b.stereo === "cis" || b.stereo === "trans") && b.stereoAtoms ? { config: b.stereo, atoms: [b.stereoAtoms[0]!, b.stereoAtoms[1]!] } : null;
    const bond: MolJsonBond = { atoms: [b.begin, b.end], order, aromatic: b.aromatic, stereo };
    if (dative) bond.dative = true;
    return bond;
  });

  return { format: MOLJSON_FORMAT, version: MOLJSON_VERSION, atoms, bonds };
}

// ---------------------------------------------------------------------------------------------------------
// Validation with JSON Pointer paths.

const ATOM_KEYS = new Set(["element", "charge", "isotope", "implicit_hydrogens", "aromatic", "chirality", "radical_electrons"]);
const BOND_KEYS = new Set(["atoms", "order", "aromatic", "stereo", "dative"]);
const TOP_KEYS = new Set(["format", "version", "atoms", "bonds"]);

function invalid(path: string, message: string, extra: Record<string, unknown> = {}): ToolError {
  return new ToolError("INVALID_MOLJSON", `Invalid MolJSON at ${path || "/"}: ${message}`, { path: path || "/", ...extra });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 20 ? `${value.slice(0, 17)}...` : value);
  if (typeof value === "object") return "an object";
  return String(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkKeys(obj: Record<string, unknown>, allowed: Set<string>, path: string, what: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) throw invalid(`${path}/${key}`, `"${key}" is not a MolJSON ${what} property (allowed: ${[...allowed].join(", ")})`);
  }
}

function integerIn(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value)) throw invalid(path, `must be an integer, got ${describe(value)}`);
  if (value < min || value > max) throw invalid(path, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function atomIndex(value: unknown, path: string, atomCount: number): number {
  if (typeof value !== "number" || !Number.isInteger(value)) throw invalid(path, `must be an atom index (integer), got ${describe(value)}`);
  if (value < 0 || value >= atomCount)
    throw invalid(path, `atom index ${value} is out of range (the molecule has ${atomCount} atoms, indices 0..${atomCount - 1})`);
  return value;
}

function booleanOr(value: unknown, path: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw invalid(path, `must be true or false, got ${describe(value)}`);
  return value;
}

/** A validated MolJSON with defaults filled in (bond stereo atoms normalised: atoms[0] of stereo is bonded to atoms[0] of the bond). */
export function validateMolJson(input: unknown): MolJson {
  if (!isObject(input)) throw invalid("", `a MolJSON document must be a JSON object, got ${describe(input)}`);
  checkKeys(input, TOP_KEYS, "", "document");
  if (input.format !== undefined && input.format !== MOLJSON_FORMAT) throw invalid("/format", `must be "${MOLJSON_FORMAT}", got ${describe(input.format)}`);
  if (input.version !== undefined && input.version !== MOLJSON_VERSION)
    throw invalid("/version", `unsupported MolJSON version ${describe(input.version)} (this server reads version ${MOLJSON_VERSION})`);
  if (!Array.isArray(input.atoms))
    throw invalid("/atoms", input.atoms === undefined ? "is required (an array of atoms)" : `must be an array, got ${describe(input.atoms)}`);
  if (input.atoms.length === 0) throw invalid("/atoms", "must hold at least one atom");
  if (input.atoms.length > MOLJSON_MAX_ATOMS) throw invalid("/atoms", `holds ${input.atoms.length} atoms; at most ${MOLJSON_MAX_ATOMS} are accepted`);
  const rawBonds = input.bonds === undefined ? [] : input.bonds;
  if (!Array.isArray(rawBonds)) throw invalid("/bonds", `must be an array, got ${describe(rawBonds)}`);
  if (rawBonds.length > MOLJSON_MAX_BONDS) throw invalid("/bonds", `holds ${rawBonds.length} bonds; at most ${MOLJSON_MAX_BONDS} are accepted`);
  const atomCount = input.atoms.length;

  // Atoms, without chirality (which needs the bonds).
  const atoms: MolJsonAtom[] = input.atoms.map((raw: unknown, i: number) => {
    const path = `/atoms/${i}`;
    if (!isObject(raw)) throw invalid(path, `an atom must be an object, got ${describe(raw)}`);
    checkKeys(raw, ATOM_KEYS, path, "atom");
    if (typeof raw.element !== "string")
      throw invalid(
        `${path}/element`,
        raw.element === undefined ? "is required (an element symbol such as C or Cl)" : `must be an element symbol, got ${describe(raw.element)}`,
      );
    if (atomicNumber(raw.element) === undefined)
      throw invalid(`${path}/element`, `unknown element symbol ${describe(raw.element)} (symbols are case-sensitive: C, Cl, Br; "*" for a dummy atom)`);
    if (raw.implicit_hydrogens === undefined)
      throw invalid(`${path}/implicit_hydrogens`, "is required (the number of hydrogens on this atom that are not atoms of the graph, often 0)");
    const atom: MolJsonAtom = {
      element: raw.element,
      charge: raw.charge === undefined ? 0 : integerIn(raw.charge, `${path}/charge`, -128, 127),
      isotope: raw.isotope === undefined || raw.isotope === null || raw.isotope === 0 ? null : integerIn(raw.isotope, `${path}/isotope`, 1, 65_535),
      implicit_hydrogens: integerIn(raw.implicit_hydrogens, `${path}/implicit_hydrogens`, 0, 16),
      aromatic: booleanOr(raw.aromatic, `${path}/aromatic`, false),
      chirality: null,
    };
    if (raw.radical_electrons !== undefined && raw.radical_electrons !== 0)
      atom.radical_electrons = integerIn(raw.radical_electrons, `${path}/radical_electrons`, 0, 255);
    return atom;
  });

  // Bonds.
  const seen = new Map<string, number>();
  const bonds: MolJsonBond[] = rawBonds.map((raw: unknown, k: number) => {
    const path = `/bonds/${k}`;
    if (!isObject(raw)) throw invalid(path, `a bond must be an object, got ${describe(raw)}`);
    checkKeys(raw, BOND_KEYS, path, "bond");
    if (!Array.isArray(raw.atoms) || raw.atoms.length !== 2) throw invalid(`${path}/atoms`, `must be an array of two atom indices, got ${describe(raw.atoms)}`);
    const i = atomIndex(raw.atoms[0], `${path}/atoms/0`, atomCount);
    const j = atomIndex(raw.atoms[1], `${path}/atoms/1`, atomCount);
    if (i === j) throw invalid(`${path}/atoms`, `a bond cannot join atom ${i} to itself`);
    const key = i < j ? `${i}-${j}` : `${j}-${i}`;
    const first = seen.get(key);
    if (first !== undefined) throw invalid(`${path}/atoms`, `atoms ${i} and ${j} are already bonded by /bonds/${first}`);
    seen.set(key, k);
    if (raw.order === undefined) throw invalid(`${path}/order`, "is required (1, 2, 3, or 1.5 for aromatic)");
    if (raw.order !== 1 && raw.order !== 2 && raw.order !== 3 && raw.order !== 1.5)
      throw invalid(`${path}/order`, `must be 1, 2, 3 or 1.5 (aromatic), got ${describe(raw.order)}`);
    const aromatic = booleanOr(raw.aromatic, `${path}/aromatic`, raw.order === 1.5);
    if (raw.order === 1.5 && !aromatic) throw invalid(`${path}/aromatic`, "order 1.5 means an aromatic bond, so aromatic cannot be false");
    const bond: MolJsonBond = { atoms: [i, j], order: raw.order, aromatic, stereo: null };
    if (raw.dative !== undefined && raw.dative !== false) {
      if (raw.dative !== true) throw invalid(`${path}/dative`, `must be true or false, got ${describe(raw.dative)}`);
      if (raw.order !== 1 || aromatic) throw invalid(`${path}/dative`, "a dative bond must have order 1 and not be aromatic");
      bond.dative = true;
    }
    return bond;
  });

  const neighbours = neighbourLists(atomCount, bonds);

  // Bond stereo.
  rawBonds.forEach((raw: Record<string, unknown>, k: number) => {
    const path = `/bonds/${k}/stereo`;
    if (raw.stereo === undefined || raw.stereo === null) return;
    const bond = bonds[k]!;
    if (!isObject(raw.stereo)) throw invalid(path, `must be null or an object {config, atoms}, got ${describe(raw.stereo)}`);
    checkKeys(raw.stereo, new Set(["config", "atoms"]), path, "bond stereo");
    const { config, atoms: refs } = raw.stereo;
    if (config !== "cis" && config !== "trans") throw invalid(`${path}/config`, `must be "cis" or "trans", got ${describe(config)}`);
    if (bond.order !== 2 || bond.aromatic) throw invalid(path, "double-bond stereo needs a non-aromatic bond of order 2");
    if (!Array.isArray(refs) || refs.length !== 2)
      throw invalid(`${path}/atoms`, `must be [a, d]: a neighbour of each end of the double bond, got ${describe(refs)}`);
    let a = atomIndex(refs[0], `${path}/atoms/0`, atomCount);
    let d = atomIndex(refs[1], `${path}/atoms/1`, atomCount);
    const [b0, b1] = bond.atoms;
    const bondedTo = (x: number, y: number) => x !== y && neighbours[y]!.includes(x);
    const others = (x: number) => x !== b0 && x !== b1;
    if (others(a) && others(d) && bondedTo(d, b0) && bondedTo(a, b1) && !(bondedTo(a, b0) && bondedTo(d, b1))) [a, d] = [d, a];
    if (!others(a) || !bondedTo(a, b0))
      throw invalid(`${path}/atoms/0`, `atom ${a} is not a neighbour of atom ${b0} (the bond's first atom) other than atom ${b1}`);
    if (!others(d) || !bondedTo(d, b1))
      throw invalid(`${path}/atoms/1`, `atom ${d} is not a neighbour of atom ${b1} (the bond's second atom) other than atom ${b0}`);
    bond.stereo = { config, atoms: [a, d] };
  });

  // Atom chirality.
  (input.atoms as Record<string, unknown>[]).forEach((raw, i) => {
    const path = `/atoms/${i}/chirality`;
    if (raw.chirality === undefined || raw.chirality === null) return;
    if (!isObject(raw.chirality)) throw invalid(path, `must be null or an object {winding, neighbors}, got ${describe(raw.chirality)}`);
    checkKeys(raw.chirality, new Set(["winding", "neighbors"]), path, "chirality");
    const { winding, neighbors } = raw.chirality;
    if (winding !== "cw" && winding !== "ccw") throw invalid(`${path}/winding`, `must be "cw" or "ccw", got ${describe(winding)}`);
    const bonded = neighbours[i]!;
    if (!Array.isArray(neighbors))
      throw invalid(`${path}/neighbors`, `must be an array of the indices of the atoms bonded to atom ${i}, got ${describe(neighbors)}`);
    const listed = neighbors.map((n: unknown, m: number) => atomIndex(n, `${path}/neighbors/${m}`, atomCount));
    if (new Set(listed).size !== listed.length) throw invalid(`${path}/neighbors`, "lists an atom twice");
    const missing = bonded.filter((n) => !listed.includes(n));
    const extra = listed.filter((n) => !bonded.includes(n));
    if (missing.length > 0 || extra.length > 0) {
      throw invalid(
        `${path}/neighbors`,
        `must list exactly the atoms bonded to atom ${i} (${bonded.join(", ") || "none"})${extra.length ? `; not bonded: ${extra.join(", ")}` : ""}`,
      );
    }
    const coordination = listed.length + atoms[i]!.implicit_hydrogens;
    if (listed.length < 3 || listed.length > 4 || coordination > 4) {
      throw invalid(
        path,
        `a tetrahedral centre needs 3 or 4 neighbours and at most 4 including implicit hydrogens; atom ${i} has ${listed.length} neighbours and ${atoms[i]!.implicit_hydrogens} implicit hydrogens`,
      );
    }
    atoms[i]!.chirality = { winding, neighbors: listed };
  });

  return { format: MOLJSON_FORMAT, version: MOLJSON_VERSION, atoms, bonds };
}

/** Parity of the permutation that turns `from` into `to` (same elements): true when odd. */
function oddPermutation(from: readonly number[], to: readonly number[]): boolean {
  const position = new Map(to.map((v, i) => [v, i]));
  const perm = from.map((v) => position.get(v)!);
  let odd = false;
  const visited = new Array<boolean>(perm.length).fill(false);
  for (let start = 0; start < perm.length; start++) {
    if (visited[start]) continue;
    let length = 0;
    for (let x = start; !visited[x]; x = perm[x]!) {
      visited[x] = true;
      length++;
    }
    if (length % 2 === 0) odd = !odd;
  }
  return odd;
}

/** The rdkitjson document RDKit's get_mol() reads for a validated MolJSON. */
export function molJsonToRdkitJson(m: MolJson, toolkitVersion: string): string {
  const neighbours = neighbourLists(m.atoms.length, m.bonds);
  const atoms: RdkitJsonAtom[] = m.atoms.map((a, i) => {
    const out: RdkitJsonAtom = { z: atomicNumber(a.element)!, impHs: a.implicit_hydrogens };
    if (a.charge !== 0) out.chg = a.charge;
    if (a.isotope !== null) out.isotope = a.isotope;
    if (a.radical_electrons) out.nRad = a.radical_electrons;
    if (a.chirality) {
      const flip = oddPermutation(a.chirality.neighbors, neighbours[i]!);
      out.stereo = (a.chirality.winding === "cw") !== flip ? "cw" : "ccw";
    }
    return out;
  });
  const aromaticBonds: number[] = [];
  const aromaticAtoms = new Set<number>();
  const bonds: RdkitJsonBond[] = m.bonds.map((b, k) => {
    const out: RdkitJsonBond = { atoms: [b.atoms[0], b.atoms[1]] };
    if (b.aromatic) {
      // RDKit re-derives the Kekulé form of aromatic bonds, so a 1.5 (or a wrong Kekulé order) is fine here.
      aromaticBonds.push(k);
      aromaticAtoms.add(b.atoms[0]).add(b.atoms[1]);
      out.bo = 1;
    } else if (b.dative) out.bo = BO_DATIVE;
    else out.bo = b.order as 1 | 2 | 3;
    if (b.stereo) {
      out.stereo = b.stereo.config;
      out.stereoAtoms = [b.stereo.atoms[0], b.stereo.atoms[1]];
    }
    return out;
  });
  const molecule: RdkitJsonMolecule = { atoms, bonds };
  if (aromaticBonds.length > 0) {
    molecule.extensions = [
      {
        name: "rdkitRepresentation",
        formatVersion: 2,
        toolkitVersion,
        aromaticAtoms: [...aromaticAtoms].sort((x, y) => x - y),
        aromaticBonds,
      },
    ];
  }
  return JSON.stringify({ rdkitjson: { version: 12 }, defaults: RDKIT_JSON_DEFAULTS, molecules: [molecule] });
}

// ---------------------------------------------------------------------------------------------------------
// MolJSON -> RDKit molecule.

/** RDKit's sanitisation complaint turned into the MolJSON field it is about. */
function rdkitFailure(log: string): ToolError {
  const text = log
    .split("\n")
    .map((l) => l.replace(/^\[[0-9:.]+\]\s*/, "").trim())
    .filter((l) => l.length > 0 && !/^\*+$/.test(l))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  const reason = text || "RDKit could not build a molecule from it";
  let m = /valence for atom # ?(\d+)/i.exec(text);
  if (m) return invalid(`/atoms/${m[1]}`, `${reason} (check implicit_hydrogens, charge and the orders of its bonds)`, { rdkit_message: reason });
  m = /Unkekulized atoms: ([\d ]+)/.exec(text);
  if (m)
    return invalid(
      `/atoms/${m[1]!.trim().split(" ")[0]}`,
      `${reason} (the aromatic system has no valid Kekulé form: check aromatic flags, implicit_hydrogens on aromatic N, and charges)`,
      { rdkit_message: reason },
    );
  m = /atom (\d+) marked aromatic/.exec(text);
  if (m) return invalid(`/atoms/${m[1]}`, `${reason} (only ring atoms can be aromatic)`, { rdkit_message: reason });
  return invalid("", reason, { rdkit_message: reason });
}

/** Builds the RDKit molecule of a validated MolJSON. Caller deletes. Throws INVALID_MOLJSON. */
export function molJsonToMol(rdkit: RDKit, m: MolJson): RDKitMol {
  const json = molJsonToRdkitJson(m, rdkit.version());
  // assignStereo false: with it, MinimalLib 2026.09 drops the cis/trans of every double bond read from JSON (its own
  // get_json() output included); tetrahedral tags survive either way. The SMILES read-back below re-perceives stereo.
  const { value: mol, log } = withErrorLog(rdkit, () => rdkit.get_mol(json, JSON.stringify({ assignStereo: false })));
  if (!mol || !mol.is_valid()) {
    mol?.delete();
    throw rdkitFailure(log);
  }
  return mol;
}

/**
 * Canonical isomeric SMILES of a validated MolJSON: built from the rdkitjson, written, and read once more so the
 * answer is exactly what canonical_smiles gives for the same molecule (stereo flags that are not real stereo
 * centres are dropped by the SMILES reader, as for any SMILES input).
 */
export function molJsonToSmiles(rdkit: RDKit, m: MolJson): string {
  const mol = molJsonToMol(rdkit, m);
  let first: string;
  try {
    first = mol.get_smiles();
  } finally {
    mol.delete();
  }
  const { value: again, log } = withErrorLog(rdkit, () => rdkit.get_mol(first));
  if (!again || !again.is_valid()) {
    again?.delete();
    throw invalid("", `the molecule's SMILES ${first} does not read back (${log.trim() || "RDKit could not parse it"})`, { smiles: first });
  }
  try {
    return again.get_smiles();
  } finally {
    again.delete();
  }
}

/** Parses a MolJSON given as a JSON string (INVALID_MOLJSON at "/" when it is not JSON). */
export function parseMolJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw invalid("", `not valid JSON (${(e as Error).message})`);
  }
}
