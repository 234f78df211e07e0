import { ALERT_SETS, screenAlerts, type AlertSetName } from "../domain/chem/alerts.js";
import { withMol } from "../domain/chem/rdkit.js";
import { type ChemTool } from "../contract/tool.js";
import { READ_ONLY_LOCAL, SMILES_ONLY_INPUT } from "./common.js";

/** The shared shape of pains_check and brenk_check: one alert set screened the way RDKit's FilterCatalog does. */
export function alertCheckTool(
  set: AlertSetName,
  meta: { name: string; title: string; description: string; familyDescription: string },
): ChemTool<{ smiles: string }> {
  const info = ALERT_SETS[set];
  return {
    kind: "chem",
    toolset: "chem",
    name: meta.name,
    title: meta.title,
    description: meta.description,
    annotations: READ_ONLY_LOCAL,
    inputSchema: SMILES_ONLY_INPUT,
    outputSchema: {
      type: "object",
      properties: {
        passes: { type: "boolean", description: "True when no alert fires." },
        alert_count: { type: "integer", minimum: 0, description: "Number of distinct alerts that fire." },
        alerts: { type: "array", items: { type: "string" }, description: "Names of the alerts that fire, in RDKit's catalog order." },
        alert_details: {
          type: "array",
          description: "Each alert that fires, with the atoms of its first match.",
          items: {
            type: "object",
            properties: {
              name: { type: "string", description: "Alert name as RDKit's FilterCatalog gives it." },
              family: { type: "string", description: meta.familyDescription },
              matched_atoms: {
                type: "array",
                items: { type: "integer", minimum: 0 },
                description: "Atom indices (0-based, SMILES order of the input molecule's heavy atoms) of the first match, in query-atom order.",
              },
            },
            required: ["name", "family", "matched_atoms"],
            additionalProperties: false,
          },
        },
        alerts_screened: { type: "integer", minimum: 0, description: "Number of alerts in the set." },
        method: { type: "string", description: "What was screened and how." },
        citation: { type: "string", description: "Source of the alert definitions." },
      },
      required: ["passes", "alert_count", "alerts", "alert_details", "alerts_screened", "method", "citation"],
      additionalProperties: false,
    },
    errors: ["INVALID_SMILES", "MOLECULE_TOO_LARGE"],
    budgetMs: 15_000,
    list: { maxItems: 10_000, budgetMs: 50_000 },
    run({ smiles }, { rdkit }) {
      return withMol(rdkit, smiles, (mol) => {
        const hits = screenAlerts(rdkit, mol, set);
        return {
          passes: hits.length === 0,
          alert_count: hits.length,
          alerts: hits.map((h) => h.name),
          alert_details: hits,
          alerts_screened: info.entries.length,
          method: `${info.entries.length} ${info.label} substructure alerts matched as RDKit's FilterCatalog does (an alert fires on at least one match)`,
          citation: info.citation,
        };
      });
    },
  };
}

export const painsCheckTool = alertCheckTool("pains", {
  name: "pains_check",
  title: "PAINS alerts (pan-assay interference)",
  description:
    "Screen for the 480 PAINS assay-interference alerts (Baell 2010, RDKit FilterCatalog): passes, alert_count, each alert with its atoms. An alert asks for confirmation, not rejection.",
  familyDescription: "PAINS family: A, B or C (Baell & Holloway's frequency classes; A most frequent).",
});
