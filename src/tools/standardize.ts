import { molGraph } from "../domain/chem/graph.js";
import {
  INORGANIC_PARENT_TEXT,
  METAL_COMPLEX_KEPT_TEXT,
  keepsItselfAsParent,
  parentNotOrganic,
  standardize,
  type StandardizeOptions,
  type StandardizeResult,
} from "../domain/chem/standardize.js";
import { canonicalOutput, withMol, type RDKit, type RDKitMol } from "../domain/chem/rdkit.js";
import { ToolError } from "../domain/errors.js";
import { keepingAtomMaps } from "../domain/chem/atom-maps.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

/**
 * Standardisation re-reads the molecule after each step and runs RDKit reactions on it; RDKit's WASM build
 * throws C++ exceptions on long chains from about 600 atoms (found by test/fuzz/giant-molecules), which
 * leave its reaction engine unusable for the rest of the call. Parent structures of real compounds are far
 * smaller, so larger inputs are refused up front.
 */
export const STANDARDIZE_MAX_ATOMS = 500;

interface Args {
  smiles: string;
  strip_salts?: boolean;
  keep_largest_fragment?: boolean;
  neutralize?: boolean;
}

const str = (description: string) => ({ type: "string", description });
const int = (description: string) => ({ type: "integer", description });

const CITATIONS = [
  "RDKit rdMolStandardize (MolStandardize, Release 2022.09; S. Leung, G. Landrum): Cleanup, LargestFragmentChooser, Uncharger, ChargeParent. https://www.rdkit.org",
  "Swain M. MolVS: molecule validation and standardization. https://molvs.readthedocs.io (normalisation transforms, acid/base pairs).",
  "RDKit Data/Salts.txt (G. Landrum, definitions from T. Zoller), as used by rdkit.Chem.SaltRemover.",
];

export const standardizeTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "standardize",
  title: "Standardise to the parent structure",
  description:
    "Standardise to the parent, as ChEMBL does: metals disconnected, normalised, salts and solvents stripped, largest organic fragment, neutralised (stereo kept). Returns parent_smiles and each change.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty("The molecule, salts included."),
      strip_salts: { type: "boolean", default: true, description: "Remove salts and solvents." },
      keep_largest_fragment: { type: "boolean", default: true, description: "Keep the largest organic fragment." },
      neutralize: { type: "boolean", default: true, description: "Neutralise charges." },
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      parent_smiles: str("Canonical SMILES of the parent structure."),
      input_smiles: str("Canonical SMILES of the input."),
      changed: { type: "boolean", description: "Whether the parent differs from the input." },
      net_charge: int("Net formal charge of the parent (non-zero for permanent charges such as quaternary ammonium)."),
      changes: {
        type: "array",
        description: "Each change, in order.",
        items: {
          type: "object",
          properties: {
            step: {
              type: "string",
              enum: ["metal_disconnection", "normalization", "reionization", "salt_stripping", "largest_fragment", "neutralization"],
              description: "Which step made it.",
            },
            description: str("What changed."),
            removed: { type: "array", items: { type: "string" }, description: "SMILES of the fragments the step removed." },
          },
          required: ["step", "description"],
          additionalProperties: false,
        },
      },
      fragments_removed: {
        type: "array",
        description: "Fragments removed: salts and solvents (with the salt-list pattern) and smaller fragments.",
        items: {
          type: "object",
          properties: {
            smiles: str("The fragment."),
            reason: { type: "string", enum: ["salt_or_solvent", "smaller_fragment"], description: "Why it was removed." },
            pattern: str("The salt-list SMARTS it matched."),
            name: str("What that pattern stands for."),
          },
          required: ["smiles", "reason"],
          additionalProperties: false,
        },
      },
      charge_changes: {
        type: "array",
        description: "Atoms the neutralisation changed.",
        items: {
          type: "object",
          properties: {
            element: str("Element symbol."),
            charge_before: int("Formal charge before."),
            charge_after: int("Formal charge after."),
            hydrogens_before: int("Hydrogens before."),
            hydrogens_after: int("Hydrogens after."),
          },
          required: ["element", "charge_before", "charge_after", "hydrogens_before", "hydrogens_after"],
          additionalProperties: false,
        },
      },
      warnings: {
        type: "array",
        items: { type: "string" },
        description:
          "Anything to check (metal complexes, skipped steps; INORGANIC_PARENT: the parent is a bare ion or has no carbon; METAL_COMPLEX_KEPT: the input holds a metal and has no organic parent, so it is its own parent).",
      },
      method: str("What was done."),
      citations: { type: "array", items: { type: "string" }, description: "Sources of the rules." },
    },
    required: ["parent_smiles", "input_smiles", "changed", "net_charge", "changes", "fragments_removed", "charge_changes", "warnings", "method", "citations"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 30_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, strip_salts = true, keep_largest_fragment = true, neutralize = true }, { rdkit }) {
    return withMol(
      rdkit,
      smiles,
      (mol) => {
        const input = mol.get_smiles();
        const { r, kept } = standardised(rdkit, mol, smiles, { stripSalts: strip_salts, largestFragment: keep_largest_fragment, neutralize });
        const steps = ["cleanup (metal disconnection, normalisation, reionisation)"];
        if (strip_salts) steps.push("salt/solvent stripping (RDKit Data/Salts.txt)");
        if (keep_largest_fragment) steps.push("largest organic fragment");
        if (neutralize) steps.push("neutralisation (Uncharger), cleanup");
        if (kept) {
          const itself = canonicalOutput(rdkit, input);
          return {
            parent_smiles: itself,
            input_smiles: input,
            changed: itself !== input,
            net_charge: netChargeOf(rdkit, itself),
            changes: [],
            fragments_removed: [],
            charge_changes: [],
            warnings: [`METAL_COMPLEX_KEPT: ${METAL_COMPLEX_KEPT_TEXT(itself, r.parent)}`],
            method: `RDKit MolStandardize rules re-implemented on RDKit MinimalLib: ${steps.join("; ")}; a molecule holding a metal whose parent would be a bare ion or carbon-free is kept as it is.`,
            citations: CITATIONS,
          };
        }
        const netCharge = netChargeOf(rdkit, r.parent);
        return {
          parent_smiles: r.parent,
          input_smiles: input,
          changed: r.parent !== input,
          net_charge: netCharge,
          changes: r.changes,
          fragments_removed: r.fragmentsRemoved,
          charge_changes: r.chargeChanges,
          // A bare ion or carbon-free parent is named with the same code the per-molecule tools' parent: true answers carry.
          warnings: parentNotOrganic(rdkit, r.parent) ? [...r.warnings, `INORGANIC_PARENT: ${INORGANIC_PARENT_TEXT(r.parent)}`] : r.warnings,
          method: `RDKit MolStandardize rules re-implemented on RDKit MinimalLib: ${steps.join("; ")}.`,
          citations: CITATIONS,
        };
      },
      { maxAtoms: STANDARDIZE_MAX_ATOMS },
    );
  },
};

/**
 * The standardisation of a molecule read from `text`, and whether it is kept as its own parent: atom map numbers
 * (attachment points) ride through as isotopes and come back on every SMILES; a metal complex or salt with no
 * organic parent is its own parent, as on every tool's parent: true.
 */
function standardised(rdkit: RDKit, mol: RDKitMol, text: string, options: StandardizeOptions): { r: StandardizeResult; kept: boolean } {
  const r = keepingAtomMaps(rdkit, mol, (m) => standardize(rdkit, m, text, options));
  return { r, kept: keepsItselfAsParent(rdkit, mol, r.parent) };
}

/**
 * The parent_smiles this tool answers with its defaults, for a molecule already read from `text` (canvas_import
 * standardises its records with it on the one parse each record gets). Refuses a molecule over
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
  const { r, kept } = standardised(rdkit, mol, text, { stripSalts: true, largestFragment: true, neutralize: true });
  return kept ? canonicalOutput(rdkit, mol.get_smiles()) : r.parent;
}

function netChargeOf(rdkit: Parameters<ChemTool["run"]>[1]["rdkit"], smiles: string): number {
  return withMol(rdkit, smiles, (m) => {
    return molGraph(m).atoms.reduce((s, a) => s + a.chg, 0);
  });
}
