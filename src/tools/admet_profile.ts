import { IONIZATION_CLASSES, computeAdmet } from "../domain/chem/admet.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";
import { MOLECULE_NOTES_PROPERTIES, SMILES_PARENT_INPUT, withInputMolecule, type SmilesParentArgs } from "./molecule-input.js";

const num = (description: string) => ({ type: "number", description });
const nullable = (description: string) => ({ type: "null", description });
const int = (description: string) => ({ type: "integer", minimum: 0, description });
const risk = (description: string) => ({ type: "number", minimum: 0, maximum: 1, description });
const names = (description: string) => ({ type: "array", items: { type: "string" }, description });

const METHOD_KEYS = [
  "bbb_score",
  "bbb_passes",
  "gi_absorbed",
  "caco2_logp",
  "herg_risk",
  "cyp3a4_risk",
  "esol_logs",
  "logd_74",
  "pka_acid",
  "pka_base",
  "ames_risk",
  "ppb_percent",
  "clearance_class",
  "ionization_class",
  "logp",
  "tpsa",
] as const;

const methodSchema = {
  type: "object",
  description: "How one value was obtained.",
  properties: {
    method: { type: "string", description: "The model or rule, or 'not estimated'." },
    citation: { type: "string", description: "Publication, or 'none' when not estimated." },
    note: { type: "string", description: "Substitutions, caveats, or why the value is null." },
  },
  required: ["method", "citation"],
  additionalProperties: false,
};

export const admetProfileTool: ChemTool<SmilesParentArgs> = {
  kind: "chem",
  toolset: "chem",
  name: "admet_profile",
  title: "ADMET screening profile (rule-based)",
  description:
    "Rule-based ADMET estimates, each with its published method: BBB, GI absorption, ESOL solubility, hERG and CYP3A4 risk, AMES alerts, ionisation and clearance class.",
  annotations: READ_ONLY_LOCAL,
  inputSchema: SMILES_PARENT_INPUT,
  outputSchema: {
    type: "object",
    properties: {
      bbb_score: num("Clark logBB estimate, 3 dp (> 0.3 readily crosses, < -1 poorly)."),
      bbb_passes: { type: "boolean", description: "Inside the BOILED-Egg yolk (passive BBB permeation likely)." },
      caco2_logp: nullable("Null: no verifiable published Caco-2 equation (see methods.caco2_logp)."),
      herg_risk: risk("Fraction of Gleeson hERG criteria met (basic centre, clogP > 4, MW > 400), 0 to 1."),
      cyp3a4_risk: risk("Fraction of Gleeson CYP3A4 criteria met (clogP > 4, MW > 400), 0 to 1."),
      pka_acid: nullable("Null: no rule-based pKa method implemented."),
      pka_base: nullable("Null: no rule-based pKa method implemented."),
      esol_logs: num("ESOL log S (mol/L), 3 dp."),
      esol_class: { type: "string", description: "SwissADME solubility class of esol_logs." },
      logd_74: nullable("Null: logD7.4 needs pKa (see methods.logd_74)."),
      mw: num("Average molecular weight, 2 dp."),
      logp: num("Wildman-Crippen logP, 3 dp."),
      tpsa: num("TPSA from N and O, Å², 2 dp."),
      hbd: int("H-bond donors (RDKit NumHBD)."),
      hba: int("H-bond acceptors (RDKit NumHBA)."),
      rotatable_bonds: int("Rotatable bonds, strict definition."),
      ames_risk: { type: "integer", minimum: 0, maximum: 1, description: "1 when a Kazius toxicophore matches (alerts.ames), else 0." },
      ppb_percent: nullable("Null: no published rule-based PPB equation implemented."),
      clearance_class: { type: "string", description: "ECCS class and likely predominant clearance mechanism, e.g. 'ECCS 2: metabolism'." },
      gi_absorbed: { type: "boolean", description: "Inside the BOILED-Egg white (passive GI absorption likely)." },
      ionization_class: {
        type: "string",
        enum: [...IONIZATION_CLASSES],
        description:
          "From acidic/basic functional groups; permanent_cation: a permanent positive charge (quaternary ammonium...) and no acidic or basic group.",
      },
      alerts: {
        type: "object",
        description: "What matched: toxicophores, criteria met, ionizable groups.",
        properties: {
          ames: names("Kazius toxicophores matched."),
          herg: names("hERG criteria met."),
          cyp3a4: names("CYP3A4 criteria met."),
          acidic_groups: names("Acidic groups found."),
          basic_groups: names("Basic groups found."),
          permanent_cations: names("Permanently charged cations found (quaternary ammonium, N-substituted azinium, phosphonium, sulfonium)."),
        },
        required: ["ames", "herg", "cyp3a4", "acidic_groups", "basic_groups", "permanent_cations"],
        additionalProperties: false,
      },
      methods: {
        type: "object",
        description: "For each value: method and citation (and why, when null).",
        properties: Object.fromEntries(METHOD_KEYS.map((k) => [k, methodSchema])),
        required: [...METHOD_KEYS],
        additionalProperties: false,
      },
      disclaimer: { type: "string", description: "These are rule-based estimates, not measurements." },
      ...MOLECULE_NOTES_PROPERTIES,
    },
    required: [
      "bbb_score",
      "bbb_passes",
      "caco2_logp",
      "herg_risk",
      "cyp3a4_risk",
      "pka_acid",
      "pka_base",
      "esol_logs",
      "logd_74",
      "mw",
      "logp",
      "tpsa",
      "hbd",
      "hba",
      "rotatable_bonds",
      "ames_risk",
      "ppb_percent",
      "clearance_class",
      "methods",
      "disclaimer",
    ],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 15_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, parent }, { rdkit }) {
    return withInputMolecule(rdkit, smiles, parent, (mol) => ({ ...computeAdmet(rdkit, mol) }));
  },
};
