/**
 * compare_series: a chemical series side by side: the shared core, the R groups at each position, matched
 * pairs, properties and alerts for the whole list in one call each, similarity to a reference, and a grid
 * picture. The molecules go in as one argument, one SMILES a line (or separated by commas or spaces).
 */
import type { Prompt } from "../contract/prompt.js";
import { plan, toolsOf, userText, type Step } from "./steps.js";

/** Molecules a series may hold: the tools' per-call lists take more, but a prompt's answer is read by a person. */
export const MAX_SERIES = 200;

/** find_mcs compares at most this many molecules. */
const MAX_MCS = 50;

/**
 * The series argument's molecules: one a line when it spans lines (a CXSMILES keeps its spaces and commas), else
 * split on commas, semicolons and spaces (none of which a plain SMILES holds).
 */
export function seriesOf(text: string): string[] {
  const parts = /[\r\n]/.test(text) ? text.split(/\r?\n|\r/) : text.split(/[\s,;]+/);
  return parts.map((s) => s.trim()).filter((s) => s !== "");
}

function steps(series: string[], core: string | undefined, reference: string | undefined): Step[] {
  const list = { smiles_list: series };
  return [
    {
      tool: "standardize",
      args: { ...list, fields: ["parent_smiles", "changed", "changes"] },
      text: "standardize every member (salts stripped, neutralised); use the standardized list from here on and report any entry that failed.",
    },
    ...(core
      ? []
      : [
          {
            tool: "find_mcs",
            args: { smiles_list: series.slice(0, MAX_MCS), ring_matches_ring_only: true, complete_rings_only: true },
            text:
              (series.length > MAX_MCS ? `the first ${MAX_MCS} members' ` : "the series' ") +
              "maximum common substructure: its SMARTS is the core for the next steps (say if it timed out).",
          },
        ]),
    {
      tool: "rgroup_decompose",
      args: { core: core ?? "<the MCS SMARTS>", smiles_list: series },
      text: "the R groups at each position of the core; list the members the core does not match.",
    },
    {
      tool: "calc_properties",
      args: { ...list, fields: ["mw", "logp", "tpsa", "hbd", "hba", "rotatable_bonds", "qed"] },
      text: "the properties of every member in one call.",
    },
    {
      tool: "druglikeness_filters",
      args: { ...list, fields: ["passed", "failed"] },
      text: "the rule sets every member passes or fails.",
    },
    { tool: "pains_check", args: { ...list, fields: ["passes", "alerts"] }, text: "PAINS alerts per member." },
    { tool: "sa_score", args: { ...list, fields: ["sa_score"] }, text: "synthetic accessibility per member." },
    {
      tool: "matched_pairs",
      args: list,
      text: "pairs that differ by one change, with the transformation; pair them with a property from the table above to read each change's effect.",
    },
    {
      tool: "tanimoto",
      args: { smiles: reference ?? "<the first member>", smiles_list: series },
      text: reference ? "ECFP4 similarity of every member to the reference." : "ECFP4 similarity of every member to the first one.",
    },
    { tool: "murcko_scaffold", args: list, text: "scaffolds: group_by_scaffold says whether the series is one chemotype or several." },
    {
      tool: "depict",
      args: {
        smiles_list: series.slice(0, 48),
        format: "svg",
        legends: series.slice(0, 48).map((_, i) => `${i + 1}`),
        align_smarts: core ?? "<the MCS SMARTS>",
      },
      text: "a grid of the series aligned on the core (up to 48 molecules).",
    },
  ];
}

export const compareSeriesPrompt: Prompt = {
  name: "compare_series",
  title: "Compare a series",
  description:
    "Compare a chemical series: its common core and R groups, matched pairs and what each change does, properties, rule sets and alerts " +
    "for every member, similarity to a reference, and a grid picture aligned on the core, chaining the tools with whole-list calls.",
  arguments: [
    {
      name: "series_smiles",
      description: `The series: 2 to ${MAX_SERIES} molecules as SMILES, one a line (or separated by commas or spaces).`,
      required: true,
      maxLength: 200_000,
      multiline: true,
    },
    {
      name: "core_smiles",
      description: "The shared core as SMILES or SMARTS (with [*:1]-style attachment points if you like); default: found with find_mcs.",
      required: false,
      maxLength: 2_000,
    },
    {
      name: "reference_smiles",
      description: "A reference molecule (the lead or the hit) to rank the series against by similarity; default: the first member.",
      required: false,
      maxLength: 4_000,
    },
  ],
  requires: ["calc_properties", "rgroup_decompose"],
  check(args) {
    const n = seriesOf(args.series_smiles ?? "").length;
    return n < 2 || n > MAX_SERIES ? `series_smiles holds ${n} molecule${n === 1 ? "" : "s"}; a series is 2 to ${MAX_SERIES}` : undefined;
  },
  chains: toolsOf(steps(["C"], undefined, undefined)),
  render(ctx) {
    const series = seriesOf(ctx.args.series_smiles!);
    const { core_smiles: core, reference_smiles: reference } = ctx.args;
    return userText(
      [
        `Compare this series of ${series.length} molecules${core ? ` on the core ${core}` : ""}${reference ? `, against the reference ${reference}` : ""}:`,
        ...series.map((s, i) => `${i + 1}. ${s}`),
        "",
        "Call these tools in order (each takes the arguments shown; replace a <placeholder> with the value an earlier answer gave; every list call answers the members in input order):",
        plan(steps(series, core, reference), ctx),
        "",
        "Then write the comparison: one table with a row per member (R groups, the properties, alerts, similarity), the changes that move " +
          "potency-relevant properties most (from the matched pairs), and which members to make or test next and why. Quote numbers as the tools answered them.",
      ].join("\n"),
    );
  },
};
