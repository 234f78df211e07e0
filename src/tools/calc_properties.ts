import { computeProperties } from "../domain/chem/properties.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";
import { MOLECULE_NOTES_PROPERTIES, SMILES_PARENT_INPUT, withInputMolecule, type SmilesParentArgs } from "./molecule-input.js";

const num = (description: string) => ({ type: "number", description });
const int = (description: string) => ({ type: "integer", minimum: 0, description });

export const calcPropertiesTool: ChemTool<SmilesParentArgs> = {
  kind: "chem",
  toolset: "chem",
  name: "calc_properties",
  title: "Molecular properties and QED",
  description:
    "Physicochemical profile, equal to RDKit: MW, exact mass, Crippen logP, TPSA, HBD/HBA, rotatable bonds, heavy atoms, formula, QED and its inputs.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: SMILES_PARENT_INPUT,
  outputSchema: {
    type: "object",
    properties: {
      mw: num("Average molecular weight, g/mol (3 dp)."),
      exact_mass: num("Monoisotopic mass (4 dp)."),
      logp: num("Wildman-Crippen logP (3 dp)."),
      tpsa: num("Topological polar surface area, Å² (2 dp)."),
      hbd: int("H-bond donors (RDKit NumHBD)."),
      hba: int("H-bond acceptors (RDKit NumHBA)."),
      rotatable_bonds: int("Rotatable bonds, strict definition."),
      heavy_atom_count: int("Heavy (non-hydrogen) atoms."),
      formula: { type: "string", description: "Molecular formula in Hill order, with net charge." },
      qed: { type: "number", minimum: 0, maximum: 1, description: "QED (mean weights), 0 to 1, 3 dp." },
      qed_properties: {
        type: "object",
        description: "The eight QED inputs.",
        properties: {
          MW: num("Molecular weight."),
          ALOGP: num("Crippen logP."),
          HBA: int("Acceptors by QED's own patterns."),
          HBD: int("Donors."),
          PSA: num("Polar surface area."),
          ROTB: int("Rotatable bonds (strict)."),
          AROM: int("Aromatic rings."),
          ALERTS: int("Structural alerts matched."),
        },
        required: ["MW", "ALOGP", "HBA", "HBD", "PSA", "ROTB", "AROM", "ALERTS"],
        additionalProperties: false,
      },
      ...MOLECULE_NOTES_PROPERTIES,
    },
    required: ["mw", "exact_mass", "logp", "tpsa", "hbd", "hba", "rotatable_bonds", "heavy_atom_count", "formula", "qed"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 15_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, parent }, { rdkit }) {
    return withInputMolecule(rdkit, smiles, parent, (mol) => ({ ...computeProperties(rdkit, mol) }));
  },
};
