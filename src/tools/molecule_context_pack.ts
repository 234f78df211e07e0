import { CONTEXT_FORMATS, buildContextPack, renderMarkdown, renderPrompt, type ContextFormat } from "../domain/chem/context_pack.js";
import { MOLJSON_SCHEMA } from "../domain/chem/moljson.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, smilesProperty } from "./common.js";
import { MOLECULE_NOTES_PROPERTIES, PARENT_PROPERTY, withInputMolecule } from "./molecule-input.js";

/** The pack runs every screen at once (PAINS, Brenk, InChI, MolJSON): a lower cap than single tools. */
const MAX_ATOMS = 1_000;

const num = { type: "number" };
const int = { type: "integer", minimum: 0 };
const str = { type: "string" };
const nullableStr = { type: ["string", "null"] };
const bool = { type: "boolean" };
const names = { type: "array", items: str };

export const moleculeContextPackTool: ChemTool<{ smiles: string; format?: ContextFormat; parent?: boolean }> = {
  kind: "chem",
  toolset: "chem",
  name: "molecule_context_pack",
  title: "Molecule context pack",
  description:
    "Everything about one molecule in one call: identifiers, properties, drug-likeness and alerts, ADMET estimates, representations; as JSON sections or ready-to-paste markdown.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: {
    type: "object",
    properties: {
      smiles: smilesProperty(),
      format: { type: "string", enum: [...CONTEXT_FORMATS], default: "json", description: "Sections as JSON, or text." },
      parent: PARENT_PROPERTY,
    },
    required: ["smiles"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      format: { type: "string", enum: [...CONTEXT_FORMATS], description: "The format answered." },
      context: { type: "string", description: "markdown or prompt: the rendered text." },
      identifiers: {
        type: "object",
        properties: { smiles: str, inchi: nullableStr, inchikey: nullableStr, formula: str, mw: num, exact_mass: num },
        required: ["smiles", "inchi", "inchikey", "formula", "mw", "exact_mass"],
        additionalProperties: false,
      },
      properties: {
        type: "object",
        properties: { logp: num, tpsa: num, hbd: int, hba: int, rotatable_bonds: int, heavy_atoms: int, qed: num, sa_score: num },
        required: ["logp", "tpsa", "hbd", "hba", "rotatable_bonds", "heavy_atoms", "qed", "sa_score"],
        additionalProperties: false,
      },
      drug_likeness: {
        type: "object",
        properties: {
          lipinski_passes: bool,
          lipinski_violations: int,
          qed: num,
          pains_passes: bool,
          brenk_passes: bool,
          pains_alerts: names,
          brenk_alerts: names,
        },
        required: ["lipinski_passes", "pains_passes", "brenk_passes", "pains_alerts", "brenk_alerts"],
        additionalProperties: false,
      },
      admet: {
        type: "object",
        properties: {
          bbb_score: num,
          bbb_passes: bool,
          gi_absorbed: bool,
          herg_risk: num,
          cyp3a4_risk: num,
          ames_risk: num,
          esol_logs: num,
          esol_class: str,
          clearance_class: str,
          ionization_class: str,
          disclaimer: str,
        },
        required: ["bbb_score", "bbb_passes", "gi_absorbed", "herg_risk", "cyp3a4_risk", "ames_risk", "esol_logs", "clearance_class", "disclaimer"],
        additionalProperties: false,
      },
      representations: {
        type: "object",
        properties: { canonical_smiles: str, moljson: { anyOf: [MOLJSON_SCHEMA, { type: "null" }] } },
        required: ["canonical_smiles", "moljson"],
        additionalProperties: false,
      },
      notes: { type: "array", items: str, description: "Why a value is missing (e.g. no InChI for this molecule)." },
      ...MOLECULE_NOTES_PROPERTIES,
    },
    required: ["format"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 30_000,
  list: { maxItems: 1_000, budgetMs: 50_000 }, // the full profile: a few ms a molecule
  run({ smiles, format = "json", parent }, { rdkit }) {
    return withInputMolecule(
      rdkit,
      smiles,
      parent,
      (mol, notes) => {
        const pack = buildContextPack(rdkit, mol);
        if (format === "markdown") return { format, context: renderMarkdown(pack, notes) };
        if (format === "prompt") return { format, context: renderPrompt(pack, notes) };
        return { format, ...pack };
      },
      { maxAtoms: MAX_ATOMS },
    );
  },
};
