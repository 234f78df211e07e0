/**
 * Molecule representations for representation_router and other tools (docs/representations.md):
 * canonical SMILES, InChI and InChIKey, MolJSON, CML and molblock, and the task -> format table.
 *
 * Size limits, measured on RDKit MinimalLib 2026.09.1 in this project:
 *  - InChI: the IUPAC library stops at 1024 atoms (empty answer), MinimalLib's WASM build traps (memory access
 *    out of bounds) on some molecules of about 1000 atoms, and hung for minutes on an 822-atom branched alkane
 *    ("CC(C)" x 274); up to 750 atoms, branched/tert-butyl alkanes, polyphenyls and polyglycines all took under
 *    3 s. InChI/InChIKey are therefore computed up to INCHI_MAX_ATOMS only.
 *  - 2D coordinates (RDKit's depiction layout, used by molblock and by CML's x2/y2) grow about quadratically:
 *    ~0.5 s at 300 atoms, ~4 s at 700, ~13 s at 1200; they are computed up to COORDS_MAX_ATOMS only.
 *  - MolJSON and CML grow by ~150-300 bytes an atom; they are written up to MOLJSON_OUTPUT_MAX_ATOMS so a reply
 *    stays well under the 1 MiB response limit.
 */
import { molJsonToCml } from "./cml.js";
import { MOLJSON_OUTPUT_MAX_ATOMS, molToMolJson, molToMolJsonWith2dCoords } from "./moljson.js";
import type { MolJson } from "./moljson.js";
import type { RDKit, RDKitMol } from "./rdkit.js";

export const INCHI_MAX_ATOMS = 750;
export const COORDS_MAX_ATOMS = 1000;

export const TASKS = ["structural_reasoning", "shortest_path", "identification", "property_prediction", "generation", "editing", "default"] as const;
export type Task = (typeof TASKS)[number];

/** Formats the router picks (the reference's four). */
export type RoutedFormat = "moljson" | "inchi" | "cml" | "canonical_smiles";

export const FORMATS = ["canonical_smiles", "inchi", "inchikey", "moljson", "cml", "molblock"] as const;
export type Format = (typeof FORMATS)[number];

/** The reference's task -> format table, with the reason given to the agent. */
export const TASK_FORMATS: Record<Task, { format: RoutedFormat; reason: string }> = {
  structural_reasoning: {
    format: "moljson",
    reason: "MolJSON lists every atom and bond with indices, charges, hydrogens and stereo, so questions about the graph need no SMILES parsing.",
  },
  shortest_path: {
    format: "moljson",
    reason: "MolJSON's bond list is the molecule's adjacency list: paths and distances between atom indices can be read off directly.",
  },
  identification: {
    format: "inchi",
    reason: "Standard InChI is a canonical, toolkit-independent identifier (InChIKey is its hashed form for database lookups).",
  },
  property_prediction: {
    format: "canonical_smiles",
    reason: "Property models and most chemistry tools take SMILES; the canonical form makes equal molecules equal strings.",
  },
  generation: {
    format: "canonical_smiles",
    reason: "SMILES is the compact text form generative models read and write; canonical SMILES avoids duplicate spellings.",
  },
  editing: {
    format: "cml",
    reason: "CML (XML) names every atom and bond with an id and explicit attributes, which structure editors and XML tools change safely.",
  },
  default: {
    format: "canonical_smiles",
    reason: "Canonical SMILES is the most widely understood and most compact representation.",
  },
};

interface Representations {
  canonical_smiles?: string;
  inchi?: string | null;
  inchikey?: string | null;
  moljson?: MolJson | null;
  cml?: string | null;
  molblock?: string | null;
}

export interface RepresentationResult {
  values: Representations;
  /** Why a requested format is null or reduced (e.g. CML without coordinates). */
  notes: string[];
}

export interface RepresentationOptions {
  /**
   * Write 2D coordinates into CML (x2/y2, plus wedge/hash bonds). Default false: a reader that sees 2D
   * coordinates (Open Babel among them) takes the drawn geometry of every double bond as specified, so a double
   * bond the SMILES leaves open would come back as E or Z. The molblock always has coordinates.
   */
  coordinates?: boolean;
}

/**
 * Wedge (W) and hash (H) bonds of a molfile, by 0-based bond index, with the 0-based atom at the narrow end.
 * V2000 bond lines carry stereo 1 (wedge) / 6 (hash); V3000 bond lines CFG=1 / CFG=3.
 */
function molblockWedges(molblock: string): Map<number, { begin: number; kind: "W" | "H" }> {
  const wedges = new Map<number, { begin: number; kind: "W" | "H" }>();
  const lines = molblock.split("\n");
  const counts = lines[3] ?? "";
  if (counts.includes("V3000")) {
    let inBonds = false;
    for (const line of lines) {
      if (line.startsWith("M  V30 BEGIN BOND")) inBonds = true;
      else if (line.startsWith("M  V30 END BOND")) inBonds = false;
      else if (inBonds) {
        const m = /^M {2}V30 (\d+) \d+ (\d+) (\d+)(.*)$/.exec(line);
        const cfg = m ? /CFG=(\d)/.exec(m[4]!) : null;
        if (m && cfg && (cfg[1] === "1" || cfg[1] === "3")) wedges.set(Number(m[1]) - 1, { begin: Number(m[2]) - 1, kind: cfg[1] === "1" ? "W" : "H" });
      }
    }
    return wedges;
  }
  const atomCount = Number(counts.slice(0, 3));
  const bondCount = Number(counts.slice(3, 6));
  for (let k = 0; k < bondCount; k++) {
    const line = lines[4 + atomCount + k] ?? "";
    const stereo = Number(line.slice(9, 12));
    if (stereo === 1 || stereo === 6) wedges.set(k, { begin: Number(line.slice(0, 3)) - 1, kind: stereo === 1 ? "W" : "H" });
  }
  return wedges;
}

/** Computes the requested formats of one parsed molecule. Every format not in `wanted` is left out. */
export function computeRepresentations(rdkit: RDKit, mol: RDKitMol, wanted: ReadonlySet<Format>, options: RepresentationOptions = {}): RepresentationResult {
  const values: Representations = {};
  const notes: string[] = [];
  const atoms = mol.get_num_atoms();

  if (wanted.has("canonical_smiles")) values.canonical_smiles = mol.get_smiles();

  if (wanted.has("inchi") || wanted.has("inchikey")) {
    let inchi: string | null = null;
    if (atoms > INCHI_MAX_ATOMS) {
      notes.push(`InChI is not computed for molecules over ${INCHI_MAX_ATOMS} atoms (this one has ${atoms}); the InChI library stops at 1024.`);
    } else {
      inchi = mol.get_inchi() || null;
      if (inchi === null) notes.push("RDKit's InChI library could not represent this molecule (for example dummy atoms '*' or an unsupported element).");
    }
    if (wanted.has("inchi")) values.inchi = inchi;
    if (wanted.has("inchikey")) values.inchikey = inchi === null ? null : rdkit.get_inchikey_for_inchi(inchi) || null;
  }

  const needGraph = wanted.has("moljson") || wanted.has("cml");
  const wantCoords = (wanted.has("cml") && options.coordinates === true) || wanted.has("molblock");
  let moljson: MolJson | null = null;
  let coords: Array<[number, number]> | null = null;
  const coordsAllowed = atoms <= COORDS_MAX_ATOMS;
  if (wantCoords && !coordsAllowed) {
    notes.push(`2D coordinates are not computed for molecules over ${COORDS_MAX_ATOMS} atoms (this one has ${atoms}): no molblock, and CML without x2/y2.`);
  }
  if (needGraph) {
    if (atoms > MOLJSON_OUTPUT_MAX_ATOMS) {
      notes.push(`MolJSON and CML are written for molecules of up to ${MOLJSON_OUTPUT_MAX_ATOMS} atoms (this one has ${atoms}).`);
    } else if (wantCoords && coordsAllowed) {
      ({ moljson, coords } = molToMolJsonWith2dCoords(mol));
    } else {
      moljson = molToMolJson(mol);
    }
  } else if (wanted.has("molblock") && coordsAllowed) {
    mol.set_new_coords();
  }
  const molblock = coordsAllowed && (wanted.has("molblock") || (coords !== null && wanted.has("cml"))) ? mol.get_molblock() : null;
  if (wanted.has("moljson")) values.moljson = moljson;
  if (wanted.has("cml")) {
    const withCoords = options.coordinates === true && coords !== null;
    values.cml = moljson ? molJsonToCml(moljson, withCoords ? { coords2d: coords, wedges: molblock ? molblockWedges(molblock) : new Map() } : {}) : null;
  }
  if (wanted.has("molblock")) values.molblock = molblock;

  return { values, notes };
}
