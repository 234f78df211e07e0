/**
 * MolJSON: the project's explicit, documented molecule graph (docs/moljson.md), and its conversions to and
 * from RDKit.
 *
 * Out: RDKit's get_json() (rdkitjson, Kekulé bond orders plus an aromaticity extension) is mapped onto
 * MolJSON, one atom and one bond for each of RDKit's, in RDKit's order.
 * In: a MolJSON document is validated here, by ajv against MOLJSON_INPUT_SCHEMA (derived from MOLJSON_SCHEMA)
 * and then for the graph's consistency, with a JSON Pointer to the first bad field (INVALID_MOLJSON),
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
import { createRequire } from "node:module";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
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

const MOLJSON_FORMAT = "chematic-moljson";
const MOLJSON_VERSION = 1;
/** Atoms a MolJSON document may hold (input), and the most smiles_to_moljson writes (so replies stay far under 1 MiB). */
const MOLJSON_MAX_ATOMS = 10_000;
const MOLJSON_MAX_BONDS = 20_000;
export const MOLJSON_OUTPUT_MAX_ATOMS = 2_000;

type Winding = "cw" | "ccw";

interface MolJsonChirality {
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

interface MolJsonBondStereo {
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

const SCHEMA = {
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
                    minItems: 0,
                    maxItems: 4,
                    items: { type: "integer", minimum: 0 },
                    description:
                      "Indices of every atom bonded to this one, in the order the winding refers to: 3 or 4 counted with the implicit " +
                      "hydrogens (2 for a secondary phosphine CC[P@H]C, whose hydrogen and lone pair come last, in that order).",
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
} as const;

/** The JSON Schema of MolJSON v1 as written (smiles_to_moljson's output); the single source of the contract. */
export const MOLJSON_SCHEMA: Record<string, unknown> = SCHEMA;

// The TypeScript types above, checked against the schema at compile time: the same properties, the same required ones.
type Props<S> = S extends { readonly properties: infer P } ? keyof P : never;
type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Agrees<T, S> = Same<keyof T, Props<S>> extends true ? Same<RequiredKeys<T>, RequiredOf<S>> : false;
type AtomSchema = typeof SCHEMA.properties.atoms.items;
type BondSchema = typeof SCHEMA.properties.bonds.items;
const schemaAgrees: [
  Agrees<MolJson, typeof SCHEMA>,
  Agrees<MolJsonAtom, AtomSchema>,
  Agrees<MolJsonChirality, AtomSchema["properties"]["chirality"]["anyOf"][1]>,
  Agrees<MolJsonBond, BondSchema>,
  Agrees<MolJsonBondStereo, BondSchema["properties"]["stereo"]["anyOf"][1]>,
] = [true, true, true, true, true];
void schemaAgrees;

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
// Validation: the structure by ajv against MOLJSON_INPUT_SCHEMA, then what a JSON Schema cannot say (atom
// indices in range, the graph's own consistency), each failure with the JSON Pointer of the bad field.

type JsonObject = Record<string, unknown>;

/**
 * What moljson_to_smiles reads: MOLJSON_SCHEMA with the input's defaults. Only element and implicit_hydrogens
 * are required of an atom, atoms and order of a bond, atoms of the document; isotope and radical_electrons
 * may be 0 and dative false (each meaning "absent"); a chirality's neighbour count is checked against the
 * bonds below instead, so that the message can name them.
 */
const MOLJSON_INPUT_SCHEMA: JsonObject = (() => {
  const schema = structuredClone(SCHEMA) as unknown as JsonObject;
  const props = (s: unknown) => (s as { properties: Record<string, JsonObject> }).properties;
  const top = props(schema);
  const atom = top.atoms!.items as JsonObject;
  const bond = top.bonds!.items as JsonObject;
  schema.required = ["atoms"];
  top.atoms!.minItems = 1;
  atom.required = ["element", "implicit_hydrogens"];
  (props(atom).isotope!.anyOf as JsonObject[]).push({ const: 0 });
  props(atom).radical_electrons!.minimum = 0;
  const neighbors = props((props(atom).chirality!.anyOf as JsonObject[])[1]).neighbors!;
  delete neighbors.minItems;
  delete neighbors.maxItems;
  bond.required = ["atoms", "order"];
  delete props(bond).dative!.const;
  return schema;
})();

let compiledInput: ValidateFunction | undefined;
/**
 * The input validator, compiled on the first MolJSON read: compiling it at import cost every worker and the
 * main thread tens of milliseconds of start-up for a tool most sessions never call.
 */
function validateInput(): ValidateFunction {
  if (compiledInput) return compiledInput;
  // ajv is CommonJS: required synchronously, on this first use.
  const { Ajv2020 } = createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  compiledInput = new Ajv2020({ strict: true, allErrors: false, verbose: true, validateFormats: false, strictRequired: false }).compile(MOLJSON_INPUT_SCHEMA);
  return compiledInput;
}

function invalid(path: string, message: string, extra: JsonObject = {}): ToolError {
  return new ToolError("INVALID_MOLJSON", `Invalid MolJSON at ${path || "/"}: ${message}`, { path: path || "/", ...extra });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 20 ? `${value.slice(0, 17)}...` : value);
  if (typeof value === "object") return "an object";
  return String(value);
}

/** What the object at `path` is, in messages. */
function objectKind(path: string): string {
  if (path === "") return "document";
  if (/^\/atoms\/\d+$/.test(path)) return "atom";
  if (/^\/bonds\/\d+$/.test(path)) return "bond";
  if (path.endsWith("/stereo")) return "bond stereo";
  return "chirality";
}

const TYPE_WORDS: Record<string, string> = {
  integer: "an integer",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  null: "null",
};

/** A branch of an anyOf, in words ("null", "an integer", "an object {winding, neighbors}"). */
function branchWords(branch: JsonObject): string {
  if ("const" in branch) return JSON.stringify(branch.const);
  const type = String(branch.type);
  if (type === "object" && Array.isArray(branch.required)) return `an object {${(branch.required as string[]).join(", ")}}`;
  return TYPE_WORDS[type] ?? type;
}

const REQUIRED_HINTS: Record<string, string> = {
  atoms: " (an array of atoms)",
  element: " (an element symbol such as C or Cl)",
  implicit_hydrogens: " (the number of hydrogens on this atom that are not atoms of the graph, often 0)",
  order: " (1, 2, 3, or 1.5 for aromatic)",
};

const UNKNOWN_ELEMENT = '(symbols are case-sensitive: C, Cl, Br; "*" for a dummy atom)';

/** The first schema violation as INVALID_MOLJSON: the JSON Pointer of the field and what is wrong with it. */
function schemaIssue(errors: readonly ErrorObject[]): ToolError {
  // ajv stops at the first failing keyword, except inside anyOf, whose branches all report: keep the failure
  // inside the branch that has the value's type (e.g. a bad winding in a chirality object), if there is one.
  const anyOf = errors.find((e) => e.keyword === "anyOf");
  const inBranch = anyOf && errors.filter((e) => e !== anyOf && !(e.instancePath === anyOf.instancePath && (e.keyword === "type" || e.keyword === "const")));
  const e = anyOf && inBranch!.length === 0 ? anyOf : (inBranch?.[0] ?? errors[0]!);
  const path = e.instancePath;
  const data: unknown = e.data;
  const parent = (e.parentSchema ?? {}) as JsonObject;
  const last = path.slice(path.lastIndexOf("/") + 1);
  switch (e.keyword) {
    case "required": {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      return invalid(`${path}/${missing}`, `is required${REQUIRED_HINTS[missing] ?? ""}`);
    }
    case "additionalProperties": {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      const allowed = Object.keys(parent.properties ?? {}).join(", ");
      return invalid(`${path}/${key}`, `"${key}" is not a MolJSON ${objectKind(path)} property (allowed: ${allowed})`);
    }
    case "type": {
      const kind = path === "" ? "a MolJSON document" : /^\/(atoms|bonds)\/\d+$/.test(path) ? `${path.startsWith("/atoms") ? "an atom" : "a bond"}` : "";
      const expected = TYPE_WORDS[String(parent.type)] ?? String(parent.type);
      return invalid(
        path,
        kind ? `${kind} must be ${path === "" ? "a JSON object" : "an object"}, got ${describe(data)}` : `must be ${expected}, got ${describe(data)}`,
      );
    }
    case "minimum":
    case "maximum": {
      const { minimum, maximum } = parent as { minimum?: number; maximum?: number };
      const range =
        minimum !== undefined && maximum !== undefined
          ? `between ${minimum} and ${maximum}`
          : minimum !== undefined
            ? `at least ${minimum}`
            : `at most ${maximum}`;
      return invalid(path, `must be ${range}, got ${describe(data)}`);
    }
    case "const":
      if (path === "/version") return invalid(path, `unsupported MolJSON version ${describe(data)} (this server reads version ${MOLJSON_VERSION})`);
      return invalid(path, `must be ${JSON.stringify(parent.const)}, got ${describe(data)}`);
    case "enum": {
      const values = (parent.enum as unknown[]).map((v) => JSON.stringify(v));
      const list = values.length > 1 ? `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}` : values.join("");
      return invalid(path, `must be ${list}${last === "order" ? " (aromatic)" : ""}, got ${describe(data)}`);
    }
    case "pattern":
    case "maxLength":
      if (last === "element") return invalid(path, `unknown element symbol ${describe(data)} ${UNKNOWN_ELEMENT}`);
      return invalid(path, `${e.message ?? "is invalid"}, got ${describe(data)}`);
    case "minItems":
    case "maxItems": {
      const n = Array.isArray(data) ? data.length : 0;
      if (path === "/atoms" && e.keyword === "minItems") return invalid(path, "must hold at least one atom");
      if (path === "/atoms" || path === "/bonds") return invalid(path, `holds ${n} ${last}; at most ${String(parent.maxItems)} are accepted`);
      if (path.endsWith("/stereo/atoms")) return invalid(path, `must be [a, d]: a neighbour of each end of the double bond, got ${n} atoms`);
      return invalid(path, `must be an array of two atom indices, got ${n} items`);
    }
    case "anyOf": {
      const branches = (e.schema as JsonObject[]).map(branchWords);
      return invalid(path, `must be ${branches.join(" or ")}, got ${describe(data)}`);
    }
    default:
      return invalid(path, `${e.message ?? "is invalid"}, got ${describe(data)}`);
  }
}

function atomIndex(value: number, path: string, atomCount: number): number {
  if (value >= atomCount) throw invalid(path, `atom index ${value} is out of range (the molecule has ${atomCount} atoms, indices 0..${atomCount - 1})`);
  return value;
}

/** The document as MOLJSON_INPUT_SCHEMA lets it be. */
interface MolJsonInput {
  atoms: Array<
    Omit<MolJsonAtom, "charge" | "isotope" | "aromatic" | "chirality"> & Partial<Pick<MolJsonAtom, "charge" | "isotope" | "aromatic" | "chirality">>
  >;
  bonds?: Array<Omit<MolJsonBond, "aromatic" | "stereo"> & Partial<Pick<MolJsonBond, "aromatic" | "stereo">>>;
}

/** A validated MolJSON with defaults filled in (bond stereo atoms normalised: atoms[0] of stereo is bonded to atoms[0] of the bond). */
export function validateMolJson(value: unknown): MolJson {
  const validate = validateInput();
  if (!validate(value)) throw schemaIssue(validate.errors ?? []);
  const input = value as MolJsonInput;
  const rawBonds = input.bonds ?? [];
  const atomCount = input.atoms.length;

  // Atoms, without chirality (which needs the bonds).
  const atoms: MolJsonAtom[] = input.atoms.map((raw, i) => {
    const path = `/atoms/${i}`;
    if (atomicNumber(raw.element) === undefined) throw invalid(`${path}/element`, `unknown element symbol ${describe(raw.element)} ${UNKNOWN_ELEMENT}`);
    const atom: MolJsonAtom = {
      element: raw.element,
      charge: raw.charge ?? 0,
      isotope: raw.isotope === undefined || raw.isotope === 0 ? null : raw.isotope,
      implicit_hydrogens: raw.implicit_hydrogens,
      aromatic: raw.aromatic ?? false,
      chirality: null,
    };
    if (raw.radical_electrons !== undefined && raw.radical_electrons !== 0) atom.radical_electrons = raw.radical_electrons;
    return atom;
  });

  // Bonds.
  const seen = new Map<string, number>();
  const bonds: MolJsonBond[] = rawBonds.map((raw, k) => {
    const path = `/bonds/${k}`;
    const i = atomIndex(raw.atoms[0], `${path}/atoms/0`, atomCount);
    const j = atomIndex(raw.atoms[1], `${path}/atoms/1`, atomCount);
    if (i === j) throw invalid(`${path}/atoms`, `a bond cannot join atom ${i} to itself`);
    const key = i < j ? `${i}-${j}` : `${j}-${i}`;
    const first = seen.get(key);
    if (first !== undefined) throw invalid(`${path}/atoms`, `atoms ${i} and ${j} are already bonded by /bonds/${first}`);
    seen.set(key, k);
    const aromatic = raw.aromatic ?? raw.order === 1.5;
    if (raw.order === 1.5 && !aromatic) throw invalid(`${path}/aromatic`, "order 1.5 means an aromatic bond, so aromatic cannot be false");
    const bond: MolJsonBond = { atoms: [i, j], order: raw.order, aromatic, stereo: null };
    if (raw.dative === true) {
      if (raw.order !== 1 || aromatic) throw invalid(`${path}/dative`, "a dative bond must have order 1 and not be aromatic");
      bond.dative = true;
    }
    return bond;
  });

  const neighbours = neighbourLists(atomCount, bonds);

  // Bond stereo.
  rawBonds.forEach((raw, k) => {
    const path = `/bonds/${k}/stereo`;
    if (raw.stereo === undefined || raw.stereo === null) return;
    const bond = bonds[k]!;
    const { config, atoms: refs } = raw.stereo;
    if (bond.order !== 2 || bond.aromatic) throw invalid(path, "double-bond stereo needs a non-aromatic bond of order 2");
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
  input.atoms.forEach((raw, i) => {
    const path = `/atoms/${i}/chirality`;
    if (raw.chirality === undefined || raw.chirality === null) return;
    const { winding, neighbors } = raw.chirality;
    const bonded = neighbours[i]!;
    const listed = neighbors.map((n, m) => atomIndex(n, `${path}/neighbors/${m}`, atomCount));
    if (new Set(listed).size !== listed.length) throw invalid(`${path}/neighbors`, "lists an atom twice");
    const missing = bonded.filter((n) => !listed.includes(n));
    const extra = listed.filter((n) => !bonded.includes(n));
    if (missing.length > 0 || extra.length > 0) {
      throw invalid(
        `${path}/neighbors`,
        `must list exactly the atoms bonded to atom ${i} (${bonded.join(", ") || "none"})${extra.length ? `; not bonded: ${extra.join(", ")}` : ""}`,
      );
    }
    // RDKit keeps a tag on a three-coordinate centre (the lone pair is the fourth), counting implicit hydrogens:
    // a sulfoxide S or phosphine P has 3 bonded atoms, a secondary phosphine CC[P@H]C has 2 and a hydrogen.
    const coordination = listed.length + atoms[i]!.implicit_hydrogens;
    if (coordination < 3 || coordination > 4) {
      throw invalid(
        path,
        `a tetrahedral centre needs 3 or 4 neighbours counting implicit hydrogens; atom ${i} has ${listed.length} neighbours and ${atoms[i]!.implicit_hydrogens} implicit hydrogens`,
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
function molJsonToRdkitJson(m: MolJson, toolkitVersion: string): string {
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
    else out.bo = b.order;
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
function molJsonToMol(rdkit: RDKit, m: MolJson): RDKitMol {
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
