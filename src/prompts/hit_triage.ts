/**
 * hit_triage: triage a target's ChEMBL hits on the canvas, the recipe the chembl-guide skill teaches: pin the
 * target, stage its potent measurements, annotate them with chemistry columns, rank scaffolds on like-for-like
 * measurements with SQL, draw the best, and check the assays behind them, with no rows through the conversation.
 */
import type { Prompt } from "../contract/prompt.js";
import { plan, toolsOf, userText, type Step } from "./steps.js";

const CHEMBL_ID = /^CHEMBL\d+$/i;

function steps(target: string, organism: string, minPchembl: number): Step[] {
  const pinned = CHEMBL_ID.test(target) ? target.toUpperCase() : "<target_chembl_id>";
  const table = "bioactivities";
  return [
    CHEMBL_ID.test(target)
      ? {
          tool: "chembl_search_targets",
          args: { target_chembl_id: pinned },
          text: "confirm the target: a SINGLE PROTEIN of the expected organism (a complex or a family mixes other proteins' measurements).",
        }
      : {
          tool: "chembl_search_targets",
          args: { query: target, organism, target_type: "SINGLE PROTEIN" },
          text: "pin the protein to one single-protein target whose components list exactly that protein; if several remain, ask which one before going on. Use its target_chembl_id below.",
        },
    {
      tool: "chembl_get_bioactivities",
      args: { target_chembl_id: pinned, pchembl_value_min: minPchembl, variant: "wild_type" },
      text:
        "stage the potent wild-type measurements on a canvas (the answer gives canvas_id and table_name). If truncated is true, say by what " +
        "(row_cap or time_budget) and narrow with standard_type or assay_type before ranking.",
    },
    {
      tool: "chembl_dataframe_query",
      args: {
        canvas_id: "<canvas_id>",
        sql: `SELECT standard_type, count(*) AS n FROM ${table} GROUP BY standard_type ORDER BY n DESC`,
      },
      text: "which measurement types there are: rank one standard_type at a time (the most common, usually IC50 or Ki), never a mix.",
    },
    {
      tool: "canvas_annotate",
      args: {
        canvas_id: "<canvas_id>",
        table,
        smiles_column: "parent_smiles",
        columns: ["qed", "pains", "brenk", "lipinski_violations", "murcko_scaffold"],
      },
      text: "chemistry columns on every row, computed on the parent's structure (not the salt's) in the server; no rows come back.",
    },
    {
      tool: "chembl_dataframe_query",
      args: {
        canvas_id: "<canvas_id>",
        sql:
          "SELECT murcko_scaffold, count(DISTINCT parent_molecule_chembl_id) AS compounds, round(median(pchembl_value), 2) AS median_pchembl, " +
          "round(max(pchembl_value), 2) AS best_pchembl, round(median(qed), 2) AS median_qed " +
          `FROM ${table} WHERE standard_type = '<type>' AND pains_count = 0 AND murcko_scaffold <> '' AND data_validity_comment IS NULL ` +
          "GROUP BY murcko_scaffold HAVING count(DISTINCT parent_molecule_chembl_id) >= 2 ORDER BY median_pchembl DESC, compounds DESC LIMIT 15",
      },
      text: "rank the chemotypes: one row per scaffold, salts and repeats merged by parent, PAINS and flagged values left out.",
    },
    {
      tool: "depict",
      args: {
        canvas_id: "<canvas_id>",
        sql:
          "SELECT murcko_scaffold AS smiles, 'median pChEMBL ' || round(median(pchembl_value), 2) AS legend " +
          `FROM ${table} WHERE standard_type = '<type>' AND pains_count = 0 AND murcko_scaffold <> '' GROUP BY murcko_scaffold ` +
          "ORDER BY median(pchembl_value) DESC, murcko_scaffold LIMIT 12",
      },
      text: "a grid of the best scaffolds.",
    },
    {
      tool: "chembl_dataframe_query",
      args: {
        canvas_id: "<canvas_id>",
        sql: `SELECT DISTINCT assay_chembl_id, document_chembl_id FROM ${table} WHERE murcko_scaffold IN ('<the top scaffolds>') LIMIT 50`,
      },
      text: "the assays and papers behind the top scaffolds.",
    },
    {
      tool: "chembl_get_assay",
      args: { assay_chembl_ids: ["<assay_chembl_id>"] },
      text: "check each assay: binding or functional, confidence score (9 is a single protein directly), organism and variant.",
    },
    { tool: "chembl_get_documents", args: { document_chembl_ids: ["<document_chembl_id>"] }, text: "the papers, to cite." },
  ];
}

export const hitTriagePrompt: Prompt = {
  name: "hit_triage",
  title: "Hit triage for a target",
  description:
    "Triage a target's ChEMBL hits: pin the target, stage its potent wild-type measurements on the canvas, add QED, PAINS, Brenk and scaffold " +
    "columns, rank scaffolds on one measurement type with SQL, draw the best and check the assays and papers behind them. For a file of your own hits, use triage_hit_list.",
  arguments: [
    {
      name: "target",
      description: "The target: a ChEMBL target ID (CHEMBL203) or a protein or gene name (EGFR, epidermal growth factor receptor).",
      required: true,
      maxLength: 200,
    },
    { name: "organism", description: "The target's organism for a name search (default Homo sapiens).", required: false, maxLength: 120 },
    {
      name: "min_pchembl",
      description: "The potency cut as pChEMBL, -log10 molar (default 6, i.e. 1 µM; 7 is 100 nM).",
      required: false,
      maxLength: 5,
    },
  ],
  requires: ["chembl_get_bioactivities", "chembl_dataframe_query", "canvas_annotate"],
  chains: toolsOf(steps("EGFR", "Homo sapiens", 6), steps("CHEMBL203", "Homo sapiens", 6)),
  check(args) {
    if (args.min_pchembl === undefined) return undefined;
    const n = Number(args.min_pchembl);
    return /^\d+(\.\d+)?$/.test(args.min_pchembl) && n >= 0 && n <= 15 ? undefined : `min_pchembl must be a number from 0 to 15, got "${args.min_pchembl}"`;
  },
  render(ctx) {
    const { target } = ctx.args;
    const organism = ctx.args.organism ?? "Homo sapiens";
    const minPchembl = ctx.args.min_pchembl === undefined ? 6 : Number(ctx.args.min_pchembl);
    return userText(
      [
        `Triage the ChEMBL hits for the target ${target!}${CHEMBL_ID.test(target!) ? "" : ` (${organism})`}, at pChEMBL >= ${minPchembl}.`,
        "",
        "Call these tools in order (each takes the arguments shown; replace a <placeholder> with the value an earlier answer gave, " +
          "<type> with the standard_type chosen in step 3):",
        plan(steps(target!, organism, minPchembl), ctx),
        "",
        "Then report: the target as pinned, how many measurements and compounds were staged (and whether the table is complete), a table of the " +
          "top scaffolds (compounds, median and best pChEMBL, median QED), the alerts that removed compounds, and which assays and papers stand " +
          "behind the top rows. Quote numbers as the tools answered them. Read the chembl-guide prompt (or skill://chembl-guide/SKILL.md) for the traps.",
      ].join("\n"),
    );
  },
};
