/**
 * Salts and mixtures in the per-molecule property and ADMET tools (calc_properties, lipinski_check,
 * admet_profile, boiled_egg, sa_score, molecule_context_pack): a result computed on a molecule with several
 * disconnected fragments says so (a MULTIPLE_FRAGMENTS warning listing them), and `parent: true` computes
 * on the standardised parent, the one the standardize tool gives by default. Its own file, not common.ts:
 * it reads tools/standardize.ts, which itself imports common.ts.
 */
import { INORGANIC_PARENT_TEXT, METAL_COMPLEX_KEPT_TEXT, isMetal, keepsItselfAsParent, parentNotOrganic, standardize } from "../domain/chem/standardize.js";
import { inputFormatOf } from "../domain/chem/input-format.js";
import { elementSymbol, molGraph } from "../domain/chem/graph.js";
import { MAX_ATOMS, canonicalOutput, withMol, type ParseOptions, type RDKit, type RDKitMol } from "../domain/chem/rdkit.js";
import type { JsonSchema } from "../contract/tool.js";
import { smilesProperty } from "./common.js";
import { STANDARDIZE_MAX_ATOMS } from "../domain/chem/standardize.js";

/** Distinct fragments listed in a MULTIPLE_FRAGMENTS warning (the largest first); fragment_count covers them all. */
const MAX_LISTED_FRAGMENTS = 20;

interface FragmentEntry {
  smiles: string;
  heavy_atoms: number;
  /** How many copies, when more than one (e.g. two Na+). */
  count?: number;
}

interface FragmentWarning {
  code: "MULTIPLE_FRAGMENTS";
  message: string;
  fragment_count: number;
  fragments: FragmentEntry[];
}

/**
 * Numbers that mean little, said with the numbers (codes from the shared conventions):
 * - INORGANIC_PARENT: the molecule computed is no organic molecule: with parent: true a bare ion (zinc acetate's
 *   [Zn+2], sodium chloride's [Na+]: salt stripping keeps the largest fragment, which for a metal salt of small
 *   anions is the metal) or a fragment without carbon; without parent, an input with no carbon (xenon, water).
 * - RADICAL: unpaired electrons ([CH3], a methyl radical, often meant as methane).
 * - METAL_COMPLEX_KEPT: with parent: true, a molecule holding a metal whose standardised parent would be no organic
 *   molecule (cisplatin's [Pt+4], zinc acetate's [Zn+2]) is computed as itself (standardize.ts keepsItselfAsParent).
 * - ORGANOMETALLIC: carbon bonded to a metal (a Grignard reagent C[Mg]Br).
 * Crippen logP, TPSA, QED, the ADMET rules and the filters are parametrised on closed-shell organic molecules.
 */
interface ParentWarning {
  code: "INORGANIC_PARENT" | "METAL_COMPLEX_KEPT" | "RADICAL" | "ORGANOMETALLIC";
  message: string;
}

/** Atoms listed by name in a caveat (then "..."). */
const LISTED_ATOMS = 5;

/**
 * The RADICAL, ORGANOMETALLIC and (without parent) INORGANIC_PARENT warnings of the molecule computed. `text` is what
 * it was read from: a SMILES without a bracket atom holds no radical and no metal, and one with an organic-subset
 * carbon has carbon, so most molecules are decided without reading the graph.
 */
function caveatWarnings(mol: RDKitMol, text: string, parent: boolean): ParentWarning[] {
  const smiles = inputFormatOf(text) === "smiles";
  const hasBracket = !smiles || text.includes("[");
  // Outside brackets only Cl starts with C.
  const surelyCarbon = smiles && /c|C(?!l)/.test(text.replace(/\[[^\]]*\]/g, ""));
  if (!hasBracket && (surelyCarbon || parent)) return [];
  const { atoms, bonds } = molGraph(mol);
  const out: ParentWarning[] = [];
  const radicals = atoms.flatMap((a, i) => (a.nRad > 0 ? [{ i, a }] : []));
  if (radicals.length > 0) {
    const electrons = radicals.reduce((n, r) => n + r.a.nRad, 0);
    const named = radicals.slice(0, LISTED_ATOMS).map((r) => `${elementSymbol(r.a.z)}${r.i + 1}`);
    out.push({
      code: "RADICAL",
      message:
        `${electrons} unpaired electron${electrons === 1 ? "" : "s"} (on atom ${named.join(", ")}${radicals.length > LISTED_ATOMS ? ", ..." : ""}): a radical. ` +
        "logP, TPSA, QED, the ADMET rules and the filters are parametrised on closed-shell molecules, so these numbers mean little. " +
        "A bracket atom takes only the hydrogens written in it ([CH3] is a methyl radical): write them all ([CH4], or C) if a closed-shell molecule was meant.",
    });
  }
  const metalCarbon = new Map<string, number>();
  for (const b of bonds) {
    const [x, y] = [atoms[b.begin]!, atoms[b.end]!];
    const metal = x.z === 6 && isMetal(y.z) ? y : y.z === 6 && isMetal(x.z) ? x : undefined;
    if (metal !== undefined) metalCarbon.set(`C-${elementSymbol(metal.z)}`, (metalCarbon.get(`C-${elementSymbol(metal.z)}`) ?? 0) + 1);
  }
  if (metalCarbon.size > 0) {
    const what = [...metalCarbon].map(([pair, n]) => (n > 1 ? `${n} ${pair}` : pair)).join(", ");
    out.push({
      code: "ORGANOMETALLIC",
      message:
        `Carbon bonded to a metal (${what}): an organometallic. logP, TPSA, QED, the ADMET rules and the filters have no parameters ` +
        "for metal-carbon bonds, so these numbers mean little. Send the organic molecule you mean (the product of the reagent, or the free ligand).",
    });
  }
  if (!parent && !atoms.some((a) => a.z === 6)) {
    out.push({
      code: "INORGANIC_PARENT",
      message: "No carbon: an inorganic species. Drug-likeness, logP, TPSA and the ADMET rules are made for organic molecules, so these numbers mean little.",
    });
  }
  return out;
}

/** What a per-molecule result says beyond its values: the parent used, and warnings (never an empty list). */
// A type, not an interface: results must stay assignable to Record<string, unknown> (ChemTool's result).
export type MoleculeNotes = {
  parent_smiles?: string;
  warnings?: Array<FragmentWarning | ParentWarning>;
};

/** The INORGANIC_PARENT warning for a parent, when it applies. */
function parentWarning(rdkit: RDKit, parent: string): ParentWarning | undefined {
  if (!parentNotOrganic(rdkit, parent)) return undefined;
  return {
    code: "INORGANIC_PARENT",
    message:
      `${INORGANIC_PARENT_TEXT(parent)} Every value is the ion's: send the organic fragment you mean (e.g. the acid of a zinc carboxylate), ` +
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
  description: "Salt-stripped parent.",
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
  parent_smiles: {
    type: "string",
    description:
      "With parent: true, the canonical SMILES of the standardised parent the values are for (the input itself for a metal complex: METAL_COMPLEX_KEPT).",
  },
  warnings: {
    type: "array",
    minItems: 1,
    description:
      "Present only when there is something to check. MULTIPLE_FRAGMENTS: the molecule computed has several disconnected fragments " +
      "(a salt, solvate or mixture) and every value is for all of them together; send parent: true or one fragment. " +
      "INORGANIC_PARENT: no carbon, or with parent: true a parent that is a bare ion. METAL_COMPLEX_KEPT: with parent: true, the input holds a metal " +
      "and has no organic parent, so it was computed as itself. RADICAL: unpaired electrons. " +
      "ORGANOMETALLIC: carbon bonded to a metal. In those three the numbers mean little.",
    items: {
      type: "object",
      properties: {
        code: { type: "string", enum: ["MULTIPLE_FRAGMENTS", "INORGANIC_PARENT", "METAL_COMPLEX_KEPT", "RADICAL", "ORGANOMETALLIC"] },
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
function fragmentWarning(rdkit: RDKit, mol: RDKitMol): FragmentWarning | undefined {
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

/** The parent a per-molecule tool computes on, and the standardised parent it stands for when the input was kept. */
interface ChosenParent {
  smiles: string;
  /** Set when the input holds a metal and was kept as its own parent (METAL_COMPLEX_KEPT): the parent it replaces. */
  instead_of?: string;
}

/**
 * The standardised parent the standardize tool gives by default (strip salts, keep the largest fragment, neutralise),
 * or the input itself when it holds a metal and that parent would be no organic molecule (keepsItselfAsParent).
 */
function chooseParent(rdkit: RDKit, smiles: string, maxAtoms: number = MAX_ATOMS): ChosenParent {
  return withMol(
    rdkit,
    smiles,
    (mol) => {
      const parent = standardize(rdkit, mol, smiles, { stripSalts: true, largestFragment: true, neutralize: true }).parent;
      return keepsItselfAsParent(rdkit, mol, parent) ? { smiles: canonicalOutput(rdkit, mol.get_smiles()), instead_of: parent } : { smiles: parent };
    },
    { maxAtoms: Math.min(maxAtoms, STANDARDIZE_MAX_ATOMS) },
  );
}

/** chooseParent's SMILES. */
function parentSmiles(rdkit: RDKit, smiles: string, maxAtoms: number = MAX_ATOMS): string {
  return chooseParent(rdkit, smiles, maxAtoms).smiles;
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
  const chosen = parent === true ? chooseParent(rdkit, smiles, options.maxAtoms) : undefined;
  const used = chosen?.smiles ?? smiles;
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
      if (chosen?.instead_of !== undefined) warnings.push({ code: "METAL_COMPLEX_KEPT", message: METAL_COMPLEX_KEPT_TEXT(used, chosen.instead_of) });
      else if (parent === true) {
        const inorganic = parentWarning(rdkit, used);
        if (inorganic) warnings.push(inorganic);
      }
      warnings.push(...caveatWarnings(mol, used, parent === true));
      if (warnings.length > 0) notes.warnings = warnings;
      return { ...fn(mol, notes), ...notes };
    },
    options,
  );
}

/** Inputs named one by one in a SALT_STANDARDISED warning (the rest are counted). */
const MAX_LISTED_STANDARDISED = 20;

/**
 * Tools that compare molecules (tanimoto, matched_pairs) compare a multi-fragment input (a salt, solvate or mixture)
 * as its standardised parent, as ChEMBL compares parent compounds, and say so: aspirin against its sodium salt is
 * 1.0, not the 0.667 of the counter-ion's bits, and a salt pairs with its analogues instead of being left out. A
 * single-fragment input is compared as given.
 */
export interface SaltStandardisedWarning {
  code: "SALT_STANDARDISED";
  message: string;
  /** Inputs compared as their parent. */
  count: number;
  /** The first of them: which argument, and the parent compared. */
  inputs: Array<{ argument: string; parent_smiles: string }>;
}

/** The parent a comparison uses for `text` when it has several fragments, or undefined for one fragment. */
export function comparisonParent(rdkit: RDKit, text: string, mol: RDKitMol): string | undefined {
  // Only "." separates fragments in SMILES; the canonical SMILES decides (a ring closure can join "C1.C1").
  if (inputFormatOf(text) === "smiles" && !text.includes(".")) return undefined;
  if (!mol.get_smiles().includes(".")) return undefined;
  return parentSmiles(rdkit, text);
}

/** The SALT_STANDARDISED warning for the inputs compared as their parents, or undefined when there were none. */
export function saltStandardisedWarning(standardised: Array<{ argument: string; parent_smiles: string }>): SaltStandardisedWarning | undefined {
  if (standardised.length === 0) return undefined;
  const named = standardised.slice(0, 3).map((s) => `${s.argument} as ${s.parent_smiles}`);
  return {
    code: "SALT_STANDARDISED",
    message:
      `${standardised.length} input${standardised.length === 1 ? " has" : "s have"} several fragments (a salt, solvate or mixture) and ` +
      `${standardised.length === 1 ? "was" : "were"} compared as the standardised parent (${named.join("; ")}${standardised.length > 3 ? "; ..." : ""}), ` +
      "so a salt compares as its active compound. Send one fragment to compare something else.",
    count: standardised.length,
    inputs: standardised.slice(0, MAX_LISTED_STANDARDISED),
  };
}

/** Output-schema property of the SALT_STANDARDISED warning, for the tools that compare molecules. */
export const SALT_WARNINGS_PROPERTY: JsonSchema = {
  type: "array",
  minItems: 1,
  description: "Present only when some input had several fragments. SALT_STANDARDISED: those inputs were compared as their standardised parents.",
  items: {
    type: "object",
    properties: {
      code: { type: "string", enum: ["SALT_STANDARDISED"] },
      message: { type: "string", description: "What was done and what to send instead." },
      count: { type: "integer", minimum: 1, description: "Inputs compared as their parent." },
      inputs: {
        type: "array",
        description: `The first ${MAX_LISTED_STANDARDISED} of them.`,
        items: {
          type: "object",
          properties: {
            argument: { type: "string", description: "smiles1, smiles2, smiles, smiles_list[i] or sdf record i." },
            parent_smiles: { type: "string", description: "The parent compared." },
          },
          required: ["argument", "parent_smiles"],
          additionalProperties: false,
        },
      },
    },
    required: ["code", "message", "count", "inputs"],
    additionalProperties: false,
  },
};
