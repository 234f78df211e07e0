import { enumerateStereoisomers, type StereoisomerResult } from "../domain/chem/stereoisomers.js";
import { withMol } from "../domain/chem/rdkit.js";
import { keepingAtomMaps } from "../domain/chem/atom-maps.js";
import type { ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

interface EnumerateStereoisomersArgs {
  smiles: string;
  only_unassigned?: boolean;
}

/** Atoms of the molecule (each candidate costs one perception pass per combination). */
const STEREOISOMERS_MAX_ATOMS = 500;
/** Time the enumeration may take within the budget. */
const ENUMERATION_MS = 15_000;

export const enumerateStereoisomersTool: ChemTool<EnumerateStereoisomersArgs, StereoisomerResult & { isomer_count: number }> = {
  kind: "chem",
  toolset: "medchem",
  name: "enumerate_stereoisomers",
  title: "Enumerate stereoisomers",
  description:
    "Stereoisomers of a molecule (RDKit EnumerateStereoisomers): every configuration of its unassigned (or, with only_unassigned false, all) centres and double bonds, as canonical SMILES.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty("The molecule."),
      only_unassigned: {
        type: "boolean",
        default: true,
        description: "false: enumerate all, ignoring the given stereo.",
      },
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      isomers: { type: "array", items: { type: "string" }, description: "Canonical isomeric SMILES, each isomer once." },
      isomer_count: { type: "integer", minimum: 0 },
      centres: { type: "integer", minimum: 0, description: "Tetrahedral centres enumerated." },
      double_bonds: { type: "integer", minimum: 0, description: "Double bonds enumerated." },
      truncated: { type: "boolean", description: "Not every combination was run (see truncated_by)." },
      truncated_by: { type: "string", enum: ["max_isomers", "time_budget"] },
    },
    required: ["isomers", "isomer_count", "centres", "double_bonds", "truncated"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 20_000,
  list: { maxItems: 100, budgetMs: 50_000 },
  run({ smiles, only_unassigned }, { rdkit }) {
    return withMol(
      rdkit,
      smiles,
      (mol) => {
        const r = keepingAtomMaps(rdkit, mol, (m) =>
          enumerateStereoisomers(rdkit, m, { onlyUnassigned: only_unassigned ?? true, deadline: Date.now() + ENUMERATION_MS }),
        );
        const { isomers, ...rest } = r;
        return { isomers, isomer_count: isomers.length, ...rest };
      },
      { maxAtoms: STEREOISOMERS_MAX_ATOMS },
    );
  },
};
