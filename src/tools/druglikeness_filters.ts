import { descriptorsOf } from "../domain/chem/rdkit.js";
import { molGraph } from "../domain/chem/graph.js";
import { DRUG_RULES, DRUG_RULE_KEYS, druglikeness, drugValues, thresholdText, type DruglikenessResult } from "../domain/chem/druglikeness.js";
import type { ChemTool, JsonSchema } from "../contract/tool.js";
import { getCanvasManager, type CanvasManager } from "../domain/canvas/manager.js";
import { annotateForm } from "./canvas_annotate.js";
import { CANVAS_SET_DEPENDENCIES, canvasSetProperties, type CanvasSetArgs, CANVAS_WRITE_ANNOTATIONS } from "./canvas-set.js";
import { MOLECULE_NOTES_PROPERTIES, SMILES_PARENT_INPUT, withInputMolecule, type MoleculeNotes, type SmilesParentArgs } from "./molecule-input.js";

const PROPERTY_NAMES = ["mw", "logp", "mr", "tpsa", "rotb", "hbd", "hba", "atoms", "rings", "carbons", "heteroatoms"];

function ruleSchema(key: string): JsonSchema {
  const rule = DRUG_RULES.find((r) => r.key === key)!;
  const props = rule.criteria.map((c) => c.property);
  return {
    type: "object",
    description: `${rule.citation}: ${rule.criteria.map((c) => `${c.property} ${thresholdText(c)}`).join(", ")}.`,
    properties: {
      pass: { type: "boolean", description: "At most max_violations criteria not met (every criterion met, but one for Lipinski's rule of five)." },
      violations: { type: "integer", minimum: 0, description: "Criteria not met." },
      max_violations: { type: "integer", minimum: 1, description: "Violations the rule set allows, when not 0 (Lipinski: 1, as lipinski_check's passes_ro5)." },
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
    required: ["pass", "violations", "values", "thresholds", "citation"],
    additionalProperties: false,
  };
}

type Args = SmilesParentArgs & CanvasSetArgs;

export function createDruglikenessFiltersTool(canvases: () => CanvasManager = getCanvasManager): ChemTool<Args, DruglikenessResult & MoleculeNotes> {
  return {
    kind: "chem",
    toolset: "medchem",
    name: "druglikeness_filters",
    title: "Drug-likeness rule sets",
    description:
      "Six published drug-likeness rule sets (Lipinski, Veber, Egan, Ghose, Muegge, rule of three): each rule's pass, failed properties, values, thresholds and citation.",
    annotations: CANVAS_WRITE_ANNOTATIONS,
    inputSchema: {
      ...SMILES_PARENT_INPUT,
      properties: {
        ...(SMILES_PARENT_INPUT.properties as Record<string, JsonSchema>),
        ...canvasSetProperties(),
      },
      dependentRequired: CANVAS_SET_DEPENDENCIES,
    },
    outputSchema: {
      type: "object",
      properties: {
        passed: { type: "array", items: { type: "string", enum: [...DRUG_RULE_KEYS] }, description: "The rule sets passed (within their allowed violations)." },
        failed: { type: "array", items: { type: "string", enum: [...DRUG_RULE_KEYS] }, description: "The rule sets not passed." },
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
    mainForm: annotateForm<Args>(canvases, (args) => [{ kind: "druglikeness", ...(args.parent ? { parent: true } : {}) }]),
    run({ smiles, parent }, { rdkit }) {
      return withInputMolecule(rdkit, smiles, parent, (mol) => {
        const d = descriptorsOf(mol);
        const carbons = molGraph(mol).atoms.filter((a) => a.z === 6).length;
        return druglikeness(drugValues(d, carbons));
      });
    },
  };
}

export const druglikenessFiltersTool = createDruglikenessFiltersTool();
