import { molGraph } from "../domain/chem/graph.js";
import { INORGANIC_PARENT_TEXT, METAL_COMPLEX_KEPT_TEXT, STANDARDIZE_MAX_ATOMS, standardizeMolecule, parentNotOrganic } from "../domain/chem/standardize.js";
import { withMol } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { smilesProperty } from "./common.js";
import { ToolError } from "../domain/errors.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import { annotateForm } from "./canvas_annotate.js";
import { CANVAS_SET_DEPENDENCIES, canvasSetProperties, type CanvasSetArgs, CANVAS_WRITE_ANNOTATIONS } from "./canvas-set.js";

interface Args extends CanvasSetArgs {
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

/**
 * The canvas form's columns: the parent and its InChIKey with the default steps, the cleaned-up molecule with every
 * reducing step off; other mixes have no column kind (INVALID_ARGUMENTS naming the two).
 */
function standardizeColumns(args: Args): Array<"parent_smiles" | "parent_inchikey" | "standardized_smiles"> {
  const steps = [args.strip_salts ?? true, args.keep_largest_fragment ?? true, args.neutralize ?? true];
  if (steps.every((s) => s)) return ["parent_smiles", "parent_inchikey"];
  if (steps.every((s) => !s)) return ["standardized_smiles"];
  throw new ToolError(
    "INVALID_ARGUMENTS",
    "On a canvas table, standardize writes the parent (every step on) or the cleaned-up molecule (strip_salts, keep_largest_fragment and neutralize all false)",
    { path: "/strip_salts" },
    "Leave the three options out for parent_smiles + parent_inchikey, or set all three false for standardized_smiles; use smiles_list for other mixes.",
  );
}

export function createStandardizeTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<Args> {
  return {
    kind: "chem",
    toolset: "chem",
    name: "standardize",
    title: "Standardise to the parent structure",
    description:
      "Standardise to the parent, as ChEMBL does: metals disconnected, normalised, salts and solvents stripped, largest organic fragment, neutralised (stereo kept). Returns parent_smiles and each change.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      type: "object",
      properties: {
        smiles: smilesProperty("The molecule, salts included."),
        strip_salts: { type: "boolean", default: true, description: "Remove salts and solvents." },
        keep_largest_fragment: { type: "boolean", default: true, description: "Keep the largest organic fragment." },
        neutralize: { type: "boolean", default: true, description: "Neutralise charges." },
        ...canvasSetProperties(),
      },
      required: ["smiles"],
      dependentRequired: CANVAS_SET_DEPENDENCIES,
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
    mainForm: annotateForm<Args>(canvases, standardizeColumns),
    run({ smiles, strip_salts = true, keep_largest_fragment = true, neutralize = true }, { rdkit }) {
      return withMol(
        rdkit,
        smiles,
        (mol) => {
          const input = mol.get_smiles();
          const options = { stripSalts: strip_salts, largestFragment: keep_largest_fragment, neutralize };
          const { result: r, parent, kept } = standardizeMolecule(rdkit, mol, smiles, options);
          const steps = ["cleanup (metal disconnection, normalisation, reionisation)"];
          if (strip_salts) steps.push("salt/solvent stripping (RDKit Data/Salts.txt)");
          if (keep_largest_fragment) steps.push("largest organic fragment");
          if (neutralize) steps.push("neutralisation (Uncharger), cleanup");
          if (kept) {
            return {
              parent_smiles: parent,
              input_smiles: input,
              changed: parent !== input,
              net_charge: netChargeOf(rdkit, parent),
              changes: [],
              fragments_removed: [],
              charge_changes: [],
              warnings: [`METAL_COMPLEX_KEPT: ${METAL_COMPLEX_KEPT_TEXT(parent, r.parent)}`],
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
}

export const standardizeTool = createStandardizeTool();

function netChargeOf(rdkit: Parameters<ChemTool["run"]>[1]["rdkit"], smiles: string): number {
  return withMol(rdkit, smiles, (m) => {
    return molGraph(m).atoms.reduce((s, a) => s + a.chg, 0);
  });
}
