import { ToolError } from "../domain/errors.js";
import { MOLJSON_SCHEMA, molJsonToSmiles, parseMolJsonText, validateMolJson } from "../domain/chem/moljson.js";
import { MAX_STRING_BYTES } from "../contract/limits.js";
import { type ChemTool, type JsonSchema } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";

interface Args {
  json?: string | Record<string, unknown>;
  moljson?: string | Record<string, unknown>;
}

/**
 * What the outline says of each top-level MolJSON property on input (the defaults validateMolJson fills in);
 * the properties themselves, their types and limits come from MOLJSON_SCHEMA.
 */
const INPUT_NOTES: Record<string, { description: string; items?: string }> = {
  format: { description: 'Optional; "chematic-moljson" when present.' },
  version: { description: "Optional; 1 when present." },
  atoms: {
    description: "Atoms: {element, implicit_hydrogens, charge?, isotope?, aromatic?, radical_electrons?, chirality?: {winding: cw|ccw, neighbors: [...]}}.",
    items: "An atom.",
  },
  bonds: {
    description: "Bonds: {atoms: [i, j], order: 1|2|3|1.5, aromatic?, dative?, stereo?: {config: cis|trans, atoms: [a, d]}}.",
    items: "A bond.",
  },
};

/**
 * The outline of MOLJSON_SCHEMA the argument shows: its properties, with the arrays' types and size limits, but
 * not the atoms and bonds in detail, which validateMolJson checks (MOLJSON_INPUT_SCHEMA, then the graph's
 * consistency) naming the exact bad field (INVALID_MOLJSON with details.path), in the same way for an object
 * and for a JSON string.
 */
function moljsonOutline(): JsonSchema {
  const fields = (MOLJSON_SCHEMA as { properties: Record<string, { type?: string; const?: unknown; maxItems?: number }> }).properties;
  const properties = Object.fromEntries(
    Object.entries(fields).map(([key, field]) => {
      const note = INPUT_NOTES[key];
      if (note === undefined) throw new Error(`moljson_to_smiles: no input note for the MolJSON property ${key}`);
      return [
        key,
        // Every node typed, as hosts' schema subsets require (host-schema.ts).
        note.items === undefined
          ? { type: field.type, ...(field.const !== undefined ? { const: field.const } : {}), description: note.description }
          : { type: field.type, maxItems: field.maxItems, description: note.description, items: { type: "object", description: note.items } },
      ];
    }),
  );
  return {
    type: "object",
    description: "MolJSON as smiles_to_moljson returns it.",
    properties,
    additionalProperties: false,
  };
}

/**
 * The argument accepts MolJSON as an object (outlined) or as a JSON string. `shown` is the form tools/list
 * shows hosts (the first alternative, server/host-schema.ts): the reference's `json` as a string, `moljson` as
 * the outlined object, so the outline is not sent twice.
 */
function moljsonArgument(description: string, shown: "object" | "string"): JsonSchema {
  const text: JsonSchema = { type: "string", minLength: 2, maxLength: MAX_STRING_BYTES, description: "MolJSON serialised as a JSON string (at most 256 KiB)." };
  return { description, anyOf: shown === "object" ? [moljsonOutline(), text] : [text, moljsonOutline()] };
}

export const moljsonToSmilesTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "moljson_to_smiles",
  title: "MolJSON graph to SMILES",
  description:
    "Turn a MolJSON graph (from smiles_to_moljson, possibly edited) back into canonical SMILES; a broken graph answers INVALID_MOLJSON naming the field.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      json: moljsonArgument("MolJSON as a JSON string, or an object as in moljson.", "string"),
      moljson: moljsonArgument("MolJSON as an object, or a JSON string as in json.", "object"),
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      canonical_smiles: { type: "string", description: "RDKit canonical isomeric SMILES of the graph." },
      atom_count: { type: "integer", minimum: 0, description: "Atoms in the MolJSON graph." },
      bond_count: { type: "integer", minimum: 0, description: "Bonds in the MolJSON graph." },
    },
    required: ["canonical_smiles", "atom_count", "bond_count"],
    additionalProperties: false,
  },
  errors: ["INVALID_MOLJSON"],
  budgetMs: 10_000,
  run(args, { rdkit }) {
    const given = (["json", "moljson"] as const).filter((k) => args[k] !== undefined);
    if (given.length !== 1) {
      throw new ToolError(
        "INVALID_ARGUMENTS",
        given.length === 0 ? "moljson_to_smiles needs the MolJSON in `json` or `moljson`" : "Give the MolJSON in `json` or in `moljson`, not both",
        { path: given.length === 0 ? "/json" : "/moljson" },
      );
    }
    const argument = given[0]!;
    const raw = args[argument]!;
    try {
      const moljson = validateMolJson(typeof raw === "string" ? parseMolJsonText(raw) : raw);
      return { canonical_smiles: molJsonToSmiles(rdkit, moljson), atom_count: moljson.atoms.length, bond_count: moljson.bonds.length };
    } catch (e) {
      if (e instanceof ToolError && e.code === "INVALID_MOLJSON") {
        // Name the argument too, so the path is unambiguous when read out of context.
        throw new ToolError(e.code, e.message, { argument, ...e.details }, e.hint);
      }
      throw e;
    }
  },
};
