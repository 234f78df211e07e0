import { descriptorsOf, round, type RDKitDescriptors } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL } from "./common.js";
import { MOLECULE_NOTES_PROPERTIES, SMILES_PARENT_INPUT, withInputMolecule, type SmilesParentArgs } from "./molecule-input.js";

/**
 * Lipinski's rule of five (Lipinski et al., Adv. Drug Deliv. Rev. 1997, 23, 3-25): MW <= 500, logP <= 5,
 * H-bond donors <= 5 (sum of NH and OH), acceptors <= 10 (sum of N and O). Donors and acceptors use the
 * paper's counts (RDKit's NHOHCount / NOCount), not the SMARTS-based counts of calc_properties.
 */
const RULES = [
  { key: "mw_le_500", property: "mw", limit: 500 },
  { key: "logp_le_5", property: "logp", limit: 5 },
  { key: "hbd_le_5", property: "hbd", limit: 5 },
  { key: "hba_le_10", property: "hba", limit: 10 },
] as const;

/** Whether each rule of five holds for a molecule with these descriptors (the rules compare unrounded values). */
function rulesMet(d: RDKitDescriptors): boolean[] {
  const exact = { mw: d.amw, logp: d.CrippenClogP, hbd: d.lipinskiHBD, hba: d.lipinskiHBA };
  return RULES.map((r) => exact[r.property] <= r.limit);
}

/** Rules of five violated by a molecule with these descriptors (canvas_annotate's lipinski_violations). */
export function lipinskiViolations(d: RDKitDescriptors): number {
  return rulesMet(d).filter((met) => !met).length;
}

const ruleFlags = Object.fromEntries(RULES.map((r) => [r.key, { type: "boolean", description: `${r.property} <= ${r.limit}` }]));

export const lipinskiCheckTool: ChemTool<SmilesParentArgs> = {
  kind: "chem",
  toolset: "chem",
  name: "lipinski_check",
  title: "Lipinski rule of five",
  description:
    "Lipinski's rule of five (MW 500, logP 5, HBD 5, HBA 10): each rule's value and limit, the violation count, passes (all met) and passes_ro5 (at most one violation, Lipinski's criterion).",
  annotations: READ_ONLY_LOCAL,
  inputSchema: SMILES_PARENT_INPUT,
  outputSchema: {
    type: "object",
    properties: {
      passes: { type: "boolean", description: "All four rules are met." },
      passes_ro5: { type: "boolean", description: "At most one rule is violated (Lipinski's criterion)." },
      violations: { type: "integer", minimum: 0, maximum: 4, description: "Rules violated." },
      mw: { type: "number", description: "Average molecular weight (2 dp)." },
      logp: { type: "number", description: "Crippen logP (3 dp)." },
      hbd: { type: "integer", minimum: 0, description: "NH + OH count." },
      hba: { type: "integer", minimum: 0, description: "N + O count." },
      rules: { type: "object", description: "Each rule met or not.", properties: ruleFlags, required: RULES.map((r) => r.key), additionalProperties: false },
      rule_details: {
        type: "array",
        description: "Each rule with its value and limit.",
        items: {
          type: "object",
          properties: {
            rule: { type: "string" },
            value: { type: "number" },
            limit: { type: "number" },
            passed: { type: "boolean" },
          },
          required: ["rule", "value", "limit", "passed"],
          additionalProperties: false,
        },
      },
      ...MOLECULE_NOTES_PROPERTIES,
    },
    required: ["passes", "mw", "logp", "hbd", "hba", "rules"],
    additionalProperties: false,
  },
  errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
  budgetMs: 10_000,
  list: { maxItems: 10_000, budgetMs: 50_000 },
  run({ smiles, parent }, { rdkit }) {
    return withInputMolecule(rdkit, smiles, parent, (mol) => {
      const d = descriptorsOf(mol);
      const values = { mw: round(d.amw, 2), logp: round(d.CrippenClogP, 3), hbd: d.lipinskiHBD, hba: d.lipinskiHBA };
      // Rules compare the unrounded values (rulesMet); the rounded ones are what the answer shows.
      const met = rulesMet(d);
      const details = RULES.map((r, i) => ({ rule: r.key, value: values[r.property], limit: r.limit, passed: met[i]! }));
      const violations = details.filter((r) => !r.passed).length;
      return {
        passes: violations === 0,
        passes_ro5: violations <= 1,
        violations,
        ...values,
        rules: Object.fromEntries(details.map((r) => [r.rule, r.passed])),
        rule_details: details,
      };
    });
  },
};
