import { MOLJSON_OUTPUT_MAX_ATOMS, MOLJSON_SCHEMA, molToMolJson } from "../domain/chem/moljson.js";
import { withMol } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

export const smilesToMoljsonTool: ChemTool<{ smiles: string }> = {
  kind: "chem",
  toolset: "chem",
  name: "smiles_to_moljson",
  title: "SMILES to MolJSON graph",
  description:
    "Convert a molecule into MolJSON, an explicit atom and bond graph (RDKit atom order), to count, locate or edit atoms; moljson_to_smiles converts it back.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: { smiles: smilesProperty() },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      moljson: MOLJSON_SCHEMA,
      canonical_smiles: { type: "string", description: "RDKit canonical isomeric SMILES of the molecule (what moljson_to_smiles gives back)." },
      atom_count: { type: "integer", minimum: 0, description: "Atoms in the graph (heavy atoms plus any explicit hydrogen atoms of the input)." },
      bond_count: { type: "integer", minimum: 0, description: "Bonds in the graph." },
      notes: {
        type: "array",
        items: { type: "string" },
        description: "Present when the SMILES holds something MolJSON v1 cannot carry (non-tetrahedral stereo, atom-map numbers).",
      },
    },
    required: ["moljson", "canonical_smiles", "atom_count", "bond_count"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 10_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles }, { rdkit }) {
    return withMol(
      rdkit,
      smiles,
      (mol) => {
        const moljson = molToMolJson(mol);
        const canonical = mol.get_smiles();
        const out: Record<string, unknown> = { moljson, canonical_smiles: canonical, atom_count: moljson.atoms.length, bond_count: moljson.bonds.length };
        const notes: string[] = [];
        if (/@(SP|TB|OH|AL)/.test(canonical))
          notes.push("Non-tetrahedral stereo (@SP, @TB, @OH, @AL) is not part of MolJSON v1; moljson_to_smiles will not restore it.");
        if (/:\d+\]/.test(canonical)) notes.push("Atom-map numbers are not part of MolJSON v1; moljson_to_smiles will not restore them.");
        if (notes.length > 0) out.notes = notes;
        return out;
      },
      { maxAtoms: MOLJSON_OUTPUT_MAX_ATOMS },
    );
  },
};
