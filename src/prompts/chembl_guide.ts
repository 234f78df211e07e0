/**
 * chembl_guide: the published chembl-guide skill (skills/chembl-guide/SKILL.md, also served as the resource
 * skill://chembl-guide/SKILL.md) as a prompt, for clients that show prompts but not resources: its text as
 * read at start-up, without the skill's front matter, and the question to answer with it when one is given.
 */
import type { Prompt } from "../contract/prompt.js";
import { userText } from "./steps.js";

/**
 * The tools the guide names (its gates, and the chemistry it hands staged tables to). The guide is the skill as
 * shipped, whatever tool sets the server keeps; the tests check this list against the skill's text.
 */
const GUIDE_TOOLS = [
  "chembl_search_targets",
  "chembl_search_molecules",
  "chembl_get_bioactivities",
  "chembl_dataframe_describe",
  "chembl_dataframe_query",
  "chembl_get_assay",
  "chembl_get_documents",
  "chembl_get_drug_info",
  "canvas_import",
  "canvas_annotate",
  "murcko_scaffold",
  "cluster_molecules",
  "pick_diverse",
  "rgroup_decompose",
  "matched_pairs",
  "druglikeness_filters",
  "enumerate_reaction",
  "enumerate_stereoisomers",
  "depict",
];

/** SKILL.md without its YAML front matter (the name and description a skill loader reads). */
export function skillBody(text: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n/.exec(text);
  return (m ? text.slice(m[0].length) : text).trim();
}

/** The prompt for the skill text `skillText` (SKILL.md as the skill tree holds it). */
export function chemblGuidePrompt(skillText: string): Prompt {
  const body = skillBody(skillText);
  return {
    name: "chembl_guide",
    title: "ChEMBL guide",
    description:
      "The chembl-guide skill as a prompt: how to answer compound, target and bioactivity questions with the chembl_* tools without the usual " +
      "ChEMBL mistakes (pin the target, rank like with like, read the inactives, check assay provenance and approval, SQL on staged tables).",
    arguments: [
      {
        name: "question",
        description: "The question to answer with the guide, e.g. which EGFR inhibitors are selective over HER2 (optional).",
        required: false,
        maxLength: 4_000,
        multiline: true,
      },
    ],
    requires: ["chembl_get_bioactivities"],
    chains: GUIDE_TOOLS,
    render(ctx) {
      const question = ctx.args.question;
      return userText(
        [
          body,
          "",
          "(The SQL recipes this guide refers to are the resource skill://chembl-guide/references/sql-recipes.md.)",
          ...(question ? ["", "Answer this question following the guide, gate by gate:", question] : []),
        ].join("\n"),
      );
    },
  };
}
