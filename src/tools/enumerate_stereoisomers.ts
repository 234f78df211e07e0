import { enumerateStereoisomers, STEREOISOMERS_MAX, type StereoisomerResult } from "../domain/chem/stereoisomers.js";
import { withMol } from "../domain/chem/rdkit.js";
import type { ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

interface EnumerateStereoisomersArgs {
  smiles: string;
  only_unassigned?: boolean;
}

/** Atoms of the molecule (each candidate costs one perception pass per combination). */
export const STEREOISOMERS_MAX_ATOMS = 500;
/** Time the enumeration may take within the budget. */
const ENUMERATION_MS = 15_000;

export const enumerateStereoisomersTool: ChemTool<EnumerateStereoisomersArgs, StereoisomerResult & { isomer_count: number }> = {
  kind: "chem",
  toolset: "medchem",
  name: "enumerate_stereoisomers",
  title: "Enumerate stereoisomers",
  description:
    "The stereoisomers of a molecule: every configuration of its unassigned tetrahedral centres and acyclic double bonds (with only_unassigned: false, of all of them, " +
    "the given stereo ignored), as canonical isomeric SMILES, de-duplicated (meso forms once), as RDKit's EnumerateStereoisomers(onlyUnassigned, unique) with " +
    "RDKit 2022.09's legacy stereo perception (a centre is enumerated when RDKit perceives it as one; pseudo-asymmetric centres stay unassigned). " +
    `At most ${STEREOISOMERS_MAX.toLocaleString("en-US")} isomers (then the first ones in a fixed order, truncated) or 15 s (truncated_by time_budget); up to ${STEREOISOMERS_MAX_ATOMS} atoms. ` +
    "Takes smiles_list too (up to 100 molecules).",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty("The molecule as a SMILES string, e.g. CC(O)C(O)C(=O)O."),
      only_unassigned: {
        type: "boolean",
        default: true,
        description: "Enumerate only the centres and double bonds the input leaves unassigned (default), keeping the given ones; false enumerates all.",
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
        const r = enumerateStereoisomers(rdkit, mol, { onlyUnassigned: only_unassigned ?? true, deadline: Date.now() + ENUMERATION_MS });
        const { isomers, ...rest } = r;
        return { isomers, isomer_count: isomers.length, ...rest };
      },
      { maxAtoms: STEREOISOMERS_MAX_ATOMS },
    );
  },
};
