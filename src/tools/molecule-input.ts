/**
 * Salts and mixtures in the per-molecule property and ADMET tools (calc_properties, lipinski_check,
 * admet_profile, boiled_egg, sa_score, molecule_context_pack): a result computed on a molecule with several
 * disconnected fragments says so (a MULTIPLE_FRAGMENTS warning listing them), and `parent: true` computes
 * on the standardised parent, the one the standardize tool gives by default. Its own file, not common.ts:
 * it reads tools/standardize.ts, which itself imports common.ts.
 */
import { PARENT_NOT_ORGANIC_TEXT, parentNotOrganic, standardize } from "../domain/chem/standardize.js";
import { inputFormatOf } from "../domain/chem/input-format.js";
import { MAX_ATOMS, withMol, type ParseOptions, type RDKit, type RDKitMol } from "../domain/chem/rdkit.js";
import type { JsonSchema } from "../contract/tool.js";
import { smilesProperty } from "./common.js";
import { STANDARDIZE_MAX_ATOMS } from "./standardize.js";

/** Distinct fragments listed in a MULTIPLE_FRAGMENTS warning (the largest first); fragment_count covers them all. */
export const MAX_LISTED_FRAGMENTS = 20;

export interface FragmentEntry {
  smiles: string;
  heavy_atoms: number;
  /** How many copies, when more than one (e.g. two Na+). */
  count?: number;
}

export interface FragmentWarning {
  code: "MULTIPLE_FRAGMENTS";
  message: string;
  fragment_count: number;
  fragments: FragmentEntry[];
}

/**
 * The standardised parent is no organic molecule: a bare ion (zinc acetate's [Zn+2], sodium chloride's [Na+]) or
 * a fragment without carbon (water, ammonia). Salt stripping keeps the largest fragment, which for a metal salt of
 * small anions is the metal; every value computed with parent: true is then the ion's, so the answer says so.
 */
export interface ParentWarning {
  code: "PARENT_NOT_ORGANIC";
  message: string;
}

/** What a per-molecule result says beyond its values: the parent used, and warnings (never an empty list). */
// A type, not an interface: results must stay assignable to Record<string, unknown> (ChemTool's result).
export type MoleculeNotes = {
  parent_smiles?: string;
  warnings?: Array<FragmentWarning | ParentWarning>;
};

/** The PARENT_NOT_ORGANIC warning for a parent, when it applies. */
export function parentWarning(rdkit: RDKit, parent: string): ParentWarning | undefined {
  if (!parentNotOrganic(rdkit, parent)) return undefined;
  return {
    code: "PARENT_NOT_ORGANIC",
    message:
      `${PARENT_NOT_ORGANIC_TEXT(parent)} Every value is the ion's: send the organic fragment you mean (e.g. the acid of a zinc carboxylate), ` +
      "or parent: false for the whole salt.",
  };
}

/** The arguments of a per-molecule tool. */
export interface SmilesParentArgs {
  smiles: string;
  parent?: boolean;
}

/** The `parent` argument. */
export const PARENT_PROPERTY: JsonSchema = {
  type: "boolean",
  default: false,
  description: "Use the salt-stripped parent.",
};

/** The input schema of a per-molecule tool: one molecule, and `parent`. */
export const SMILES_PARENT_INPUT: JsonSchema = {
  type: "object",
  properties: { smiles: smilesProperty(), parent: PARENT_PROPERTY },
  required: ["smiles"],
  additionalProperties: false,
};

/** Output-schema properties of MoleculeNotes, spread into each tool's outputSchema.properties. */
export const MOLECULE_NOTES_PROPERTIES: Record<string, JsonSchema> = {
  parent_smiles: { type: "string", description: "With parent: true, the canonical SMILES of the standardised parent the values are for." },
  warnings: {
    type: "array",
    minItems: 1,
    description:
      "Present only when there is something to check. MULTIPLE_FRAGMENTS: the molecule computed has several disconnected fragments " +
      "(a salt, solvate or mixture) and every value is for all of them together; send parent: true or one fragment. " +
      "PARENT_NOT_ORGANIC: with parent: true, the standardised parent is a bare ion or has no carbon, so every value is the ion's.",
    items: {
      type: "object",
      properties: {
        code: { type: "string", enum: ["MULTIPLE_FRAGMENTS", "PARENT_NOT_ORGANIC"] },
        message: { type: "string", description: "What it means and what to do." },
        fragment_count: { type: "integer", minimum: 2, description: "MULTIPLE_FRAGMENTS: fragments, copies included." },
        fragments: {
          type: "array",
          description: `MULTIPLE_FRAGMENTS: distinct fragments, the largest first (at most ${MAX_LISTED_FRAGMENTS}).`,
          items: {
            type: "object",
            properties: {
              smiles: { type: "string", description: "SMILES of the fragment (canonical, as written in the whole molecule's canonical SMILES)." },
              heavy_atoms: { type: "integer", minimum: 0, description: "Its heavy atoms." },
              count: { type: "integer", minimum: 2, description: "Copies of it, when more than one." },
            },
            required: ["smiles", "heavy_atoms"],
            additionalProperties: false,
          },
        },
      },
      required: ["code", "message"],
      additionalProperties: false,
    },
  },
};

/** The MULTIPLE_FRAGMENTS warning of `mol`, or undefined when it is one fragment. */
export function fragmentWarning(rdkit: RDKit, mol: RDKitMol): FragmentWarning | undefined {
  const pieces = mol.get_smiles().split(".");
  if (pieces.length < 2) return undefined;
  const counts = new Map<string, number>();
  for (const p of pieces) counts.set(p, (counts.get(p) ?? 0) + 1);
  const entries: FragmentEntry[] = [...counts].map(([smiles, count]) => {
    // Each piece is RDKit's own output; it is read again only to count its heavy atoms.
    const m = rdkit.get_mol(smiles);
    let heavy = 0;
    try {
      if (m?.is_valid()) heavy = m.get_num_atoms(true);
    } finally {
      m?.delete();
    }
    return count > 1 ? { smiles, heavy_atoms: heavy, count } : { smiles, heavy_atoms: heavy };
  });
  entries.sort((a, b) => b.heavy_atoms - a.heavy_atoms || (a.smiles < b.smiles ? -1 : a.smiles > b.smiles ? 1 : 0));
  const named = entries.slice(0, 3).map((e) => (e.count ? `${e.count} x ${e.smiles}` : e.smiles));
  return {
    code: "MULTIPLE_FRAGMENTS",
    message:
      `${pieces.length} disconnected fragments (a salt, solvate or mixture: ${named.join(", ")}${entries.length > 3 ? ", ..." : ""}): ` +
      "every value is for all of them together, as if one molecule. Send parent: true to compute on the standardised parent, or send the fragment you mean.",
    fragment_count: pieces.length,
    fragments: entries.slice(0, MAX_LISTED_FRAGMENTS),
  };
}

/** The standardised parent the standardize tool gives by default (strip salts, keep the largest fragment, neutralise). */
export function parentSmiles(rdkit: RDKit, smiles: string, maxAtoms: number = MAX_ATOMS): string {
  return withMol(rdkit, smiles, (mol) => standardize(rdkit, mol, smiles, { stripSalts: true, largestFragment: true, neutralize: true }).parent, {
    maxAtoms: Math.min(maxAtoms, STANDARDIZE_MAX_ATOMS),
  });
}

/**
 * Runs `fn` on the molecule a per-molecule tool computes on: the input, or with `parent` its standardised
 * parent. `fn` gets the notes (the parent used, the MULTIPLE_FRAGMENTS warning) so a rendered text can carry
 * them too; the result carries them after its own fields, each only when it has something to say.
 */
export function withInputMolecule<T extends object>(
  rdkit: RDKit,
  smiles: string,
  parent: boolean | undefined,
  fn: (mol: RDKitMol, notes: MoleculeNotes) => T,
  options: ParseOptions = {},
): T & MoleculeNotes {
  const used = parent === true ? parentSmiles(rdkit, smiles, options.maxAtoms) : smiles;
  return withMol(
    rdkit,
    used,
    (mol) => {
      // Only "." separates fragments in SMILES (a ring-closure digit can join them again, as in C1.C1): without one, one fragment.
      // A molblock says nothing so cheap: its molecule is always checked.
      const warning = used.includes(".") || inputFormatOf(used) === "molblock" ? fragmentWarning(rdkit, mol) : undefined;
      const notes: MoleculeNotes = {};
      if (parent === true) notes.parent_smiles = used;
      const warnings: Array<FragmentWarning | ParentWarning> = [];
      if (warning) warnings.push(warning);
      const inorganic = parent === true ? parentWarning(rdkit, used) : undefined;
      if (inorganic) warnings.push(inorganic);
      if (warnings.length > 0) notes.warnings = warnings;
      return { ...fn(mol, notes), ...notes };
    },
    options,
  );
}
