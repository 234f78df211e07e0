import { descriptorsOf } from "../domain/chem/rdkit.js";
import { molGraph } from "../domain/chem/graph.js";
import { DRUG_RULES, DRUG_RULE_KEYS, druglikeness, drugValues, thresholdText, type DruglikenessResult } from "../domain/chem/druglikeness.js";
import type { ChemTool, JsonSchema } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";
import {
  MOLECULE_NOTES_PROPERTIES,
  PARENT_DESCRIPTION,
  SMILES_PARENT_INPUT,
  withInputMolecule,
  type MoleculeNotes,
  type SmilesParentArgs,
} from "./molecule-input.js";

const PROPERTY_NAMES = ["mw", "logp", "mr", "tpsa", "rotb", "hbd", "hba", "atoms", "rings", "carbons", "heteroatoms"];

function ruleSchema(key: string): JsonSchema {
  const rule = DRUG_RULES.find((r) => r.key === key)!;
  const props = rule.criteria.map((c) => c.property);
  return {
    type: "object",
    description: `${rule.citation}: ${rule.criteria.map((c) => `${c.property} ${thresholdText(c)}`).join(", ")}.`,
    properties: {
      pass: { type: "boolean", description: "Every criterion met." },
      failed: { type: "array", items: { type: "string", enum: props }, description: "The properties outside their bounds (absent when none)." },
      values: {
        type: "object",
        description: "The molecule's value of each property (mw, tpsa 2 dp; logp, mr 3 dp; the comparison uses the unrounded value).",
        properties: Object.fromEntries(props.map((p) => [p, { type: "number" }])),
        required: props,
        additionalProperties: false,
      },
      thresholds: {
        type: "object",
        description: "Each property's bounds as published ('<= 500', '160..480' inclusive, '< 300', '> 4').",
        properties: Object.fromEntries(props.map((p) => [p, { type: "string" }])),
        required: props,
        additionalProperties: false,
      },
      citation: { type: "string" },
    },
    required: ["pass", "values", "thresholds", "citation"],
    additionalProperties: false,
  };
}

export const druglikenessFiltersTool: ChemTool<SmilesParentArgs, DruglikenessResult & MoleculeNotes> = {
  kind: "chem",
  toolset: "medchem",
  name: "druglikeness_filters",
  title: "Drug-likeness rule sets",
  description:
    "Six published drug-likeness rule sets on one molecule: lipinski (1997: MW <= 500, logP <= 5, NH+OH <= 5, N+O <= 10), veber (2002: rotatable bonds <= 10, TPSA <= 140), " +
    "egan (2000: logP <= 5.88, TPSA <= 131.6), ghose (1999: MW 160..480, logP -0.4..5.6, molar refractivity 40..130, 20..70 atoms with H), " +
    "muegge (2001: MW 200..600, logP -2..5, TPSA <= 150, rings <= 7, carbons > 4, heteroatoms > 1, rotatable bonds <= 15, HBA <= 10, HBD <= 5) and " +
    "ro3, Congreve's rule of three for fragments (2003: MW < 300, logP, HBD, HBA, rotatable bonds <= 3, TPSA <= 60). " +
    "Each rule answers pass (every criterion met), the failed properties, the values, the thresholds and its citation; passed/failed list the rule names. " +
    "Values are RDKit descriptors: Crippen logP and molar refractivity (RDKit has no ALOGP/XLOGP/ClogP), TPSA of N and O, strict rotatable bonds, SMARTS-based HBD/HBA " +
    "(Lipinski's own NH+OH / N+O counts in lipinski). Takes smiles_list too (up to 10,000 per call)." +
    PARENT_DESCRIPTION,
  annotations: READ_ONLY_LOCAL,
  inputSchema: SMILES_PARENT_INPUT,
  outputSchema: {
    type: "object",
    properties: {
      passed: { type: "array", items: { type: "string", enum: [...DRUG_RULE_KEYS] }, description: "The rule sets whose every criterion is met." },
      failed: { type: "array", items: { type: "string", enum: [...DRUG_RULE_KEYS] }, description: "The rule sets with a criterion not met." },
      rules: {
        type: "object",
        description: `Each rule set by name. Properties: ${PROPERTY_NAMES.join(", ")}.`,
        properties: Object.fromEntries(DRUG_RULE_KEYS.map((k) => [k, ruleSchema(k)])),
        required: [...DRUG_RULE_KEYS],
        additionalProperties: false,
      },
      ...MOLECULE_NOTES_PROPERTIES,
    },
    required: ["passed", "failed", "rules"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 10_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, parent }, { rdkit }) {
    return withInputMolecule(rdkit, smiles, parent, (mol) => {
      const d = descriptorsOf(mol);
      const carbons = molGraph(mol).atoms.filter((a) => a.z === 6).length;
      return druglikeness(drugValues(d, carbons));
    });
  },
};
