import { withMol } from "../domain/chem/rdkit.js";
import { inputFormatOf } from "../domain/chem/input-format.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";

interface Args {
  smiles: string;
  isomeric?: boolean;
  kekulize?: boolean;
}

export const canonicalSmilesTool: ChemTool<Args> = {
  kind: "chem",
  toolset: "chem",
  name: "canonical_smiles",
  title: "Canonical SMILES",
  description: "RDKit canonical SMILES, so two spellings of one molecule compare equal (deduplication, lookups).",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty(),
      isomeric: { type: "boolean", default: true, description: "Keep stereo and isotopes." },
      kekulize: { type: "boolean", default: false, description: "Kekulé form." },
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      canonical: { type: "string", description: "RDKit canonical SMILES." },
      input: { type: "string", description: "The SMILES as given (left out for a molblock or CXSMILES input)." },
      changed: { type: "boolean", description: "True when the canonical form differs from the input string (left out for a molblock or CXSMILES input)." },
    },
    required: ["canonical"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 10_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, isomeric = true, kekulize = false }, { rdkit }) {
    return withMol(rdkit, smiles, (mol) => {
      const canonical = isomeric && !kekulize ? mol.get_smiles() : mol.get_smiles(JSON.stringify({ doIsomericSmiles: isomeric, doKekule: kekulize }));
      // A molblock or CXSMILES is not a spelling of the canonical SMILES: no input echo (a molblock would be long) and no changed.
      if (inputFormatOf(smiles) !== "smiles") return { canonical };
      return { canonical, input: smiles, changed: canonical !== smiles };
    });
  },
};
