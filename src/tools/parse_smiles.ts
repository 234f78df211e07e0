import { descriptorsOf, round, withMol } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, SMILES_ONLY_INPUT } from "./common.js";

interface Args {
  smiles: string;
}

export const parseSmilesTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "parse_smiles",
  title: "Parse SMILES",
  description:
    "Check that a SMILES is a valid molecule (first, on a SMILES from a user or a model): atom and bond counts, weight and RDKit's SMILES, or INVALID_SMILES saying where the mistake is.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: SMILES_ONLY_INPUT,
  outputSchema: {
    type: "object",
    properties: {
      valid: { type: "boolean", const: true, description: "Always true on success (failures are errors)." },
      atoms: { type: "integer", minimum: 0, description: "Heavy atoms (hydrogens are implicit)." },
      bonds: { type: "integer", minimum: 0, description: "Bonds between heavy atoms." },
      mol_weight: { type: "number", description: "Average molecular weight, g/mol, 3 decimals." },
      smiles: { type: "string", description: "The molecule written back by RDKit (canonical)." },
      fragments: { type: "integer", minimum: 1, description: "Number of disconnected components (salts, mixtures)." },
    },
    required: ["valid", "atoms", "bonds", "mol_weight", "smiles"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 10_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles }, { rdkit }) {
    return withMol(rdkit, smiles, (mol) => {
      const d = descriptorsOf(mol);
      const canonical = mol.get_smiles();
      return {
        valid: true,
        atoms: mol.get_num_atoms(),
        bonds: mol.get_num_bonds(),
        mol_weight: round(d.amw, 3),
        smiles: canonical,
        fragments: canonical.length === 0 ? 1 : canonical.split(".").length,
      };
    });
  },
};
